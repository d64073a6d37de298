/** The style rules the backtest report and the sweep report share; `cells` aligns table cells (left or right). */
export function reportCss(cells: 'left' | 'right'): string {
  return `body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px; color: #222; background: #fafafa; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 24px 0 8px; }
.sub { color: #666; margin-bottom: 16px; }
.chart { display: block; margin: 12px 0; border: 1px solid #ddd; background: #fff; max-width: 100%; height: auto; }
table { border-collapse: collapse; background: #fff; }
th, td { border: 1px solid #ddd; padding: 4px 8px; text-align: ${cells}; font-variant-numeric: tabular-nums; }
th { background: #f0f0f0; font-weight: 600; }`;
}
