/** The pause in typing after which a device search is sent (its tests run the page's clock past it). */
export const SEARCH_DELAY_MS = 250;
