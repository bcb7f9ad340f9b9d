import { render } from 'preact';
import { PlayerPage } from './page';

const root = document.getElementById('player');
if (root) render(<PlayerPage />, root);
