/** Text for HTML and SVG (element content and double-quoted attributes): & < > " escaped. */
export const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
