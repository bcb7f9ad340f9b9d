import { writeFileSync } from 'node:fs';
import { buildOpenApiDocument, OPENAPI_FILE, serializeOpenApiDocument } from '../lib/openapi/document';

// `npm run openapi`: regenerates the committed description from the code.
writeFileSync(
  new URL(`../${OPENAPI_FILE}`, import.meta.url),
  serializeOpenApiDocument(buildOpenApiDocument()),
);
console.log(`wrote ${OPENAPI_FILE}`);
