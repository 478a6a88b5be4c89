//! Time-series line plots as standalone SVG (no fonts or libraries needed to write them).
//!
//! Owns: [`TimePlot`]. The SVG root carries `data-x0/x1` (data range) and `data-px0/px1`
//! (pixel range) so the report's script can draw a cursor at the replay's current time.

use std::fmt::Write;

/// One line.
#[derive(Debug, Clone)]
pub struct Line {
    /// Legend label.
    pub name: String,
    /// CSS colour.
    pub color: String,
    /// y values (same length as the plot's x).
    pub y: Vec<f64>,
}

/// A plot of several lines over a common x axis.
#[derive(Debug, Clone)]
pub struct TimePlot {
    /// Title.
    pub title: String,
    /// y-axis label (with unit).
    pub ylabel: String,
    /// Logarithmic y axis (values ≤ 0 drawn on the bottom edge).
    pub log_y: bool,
    /// x values (s).
    pub x: Vec<f64>,
    /// Lines.
    pub lines: Vec<Line>,
}

const W: f64 = 640.0;
const H: f64 = 300.0;
const L: f64 = 78.0;
const R: f64 = 16.0;
const T: f64 = 34.0;
const B: f64 = 44.0;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Compact number for tick labels.
fn tick_label(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if v.abs() >= 1e4 || v.abs() < 1e-2 {
        format!("{v:.0e}")
    } else {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// "Nice" linear ticks covering [lo, hi].
fn nice_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let span = (hi - lo).max(1e-300);
    let raw = span / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| span / s <= 6.0)
        .unwrap_or(10.0 * mag);
    let mut t = (lo / step).ceil() * step;
    let mut out = Vec::new();
    while t <= hi + 1e-9 * span && out.len() < 20 {
        out.push(if t.abs() < 1e-12 * span { 0.0 } else { t });
        t += step;
    }
    out
}

impl TimePlot {
    fn y_range(&self) -> (f64, f64, bool) {
        let vals = self.lines.iter().flat_map(|l| l.y.iter().copied());
        if self.log_y {
            let pos: Vec<f64> = vals.filter(|v| v.is_finite() && *v > 0.0).collect();
            if let (Some(lo), Some(hi)) = (
                pos.iter().copied().reduce(f64::min),
                pos.iter().copied().reduce(f64::max),
            ) {
                let (a, b) = (lo.log10().floor(), hi.log10().ceil());
                return (a, if b > a { b } else { a + 1.0 }, true);
            }
            return (0.0, 1.0, false);
        }
        let fin: Vec<f64> = vals.filter(|v| v.is_finite()).collect();
        let lo = fin.iter().copied().fold(0.0, f64::min);
        let hi = fin.iter().copied().fold(0.0, f64::max);
        if hi > lo {
            let pad = 0.05 * (hi - lo);
            (if lo < 0.0 { lo - pad } else { lo }, hi + pad, false)
        } else {
            (lo - 1.0, lo + 1.0, false)
        }
    }

    /// Render as a standalone SVG document.
    pub fn to_svg(&self) -> String {
        let x0 = self.x.first().copied().unwrap_or(0.0);
        let x1 = self.x.last().copied().unwrap_or(1.0).max(x0 + 1e-12);
        let (y0, y1, log) = self.y_range();
        let px = |x: f64| L + (x - x0) / (x1 - x0) * (W - L - R);
        let ty = |y: f64| {
            if log {
                if y > 0.0 { y.log10().max(y0) } else { y0 }
            } else {
                y
            }
        };
        let py = |y: f64| H - B - (ty(y).clamp(y0, y1) - y0) / (y1 - y0) * (H - T - B);
        let mut s = String::new();
        let _ = writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" class="plot" viewBox="0 0 {W} {H}" width="{W}" height="{H}" font-family="sans-serif" font-size="11" data-x0="{x0}" data-x1="{x1}" data-px0="{L}" data-px1="{}">"#,
            W - R
        );
        let _ = writeln!(s, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
        let _ = writeln!(
            s,
            r#"<text x="{}" y="20" text-anchor="middle" font-size="13" font-weight="bold">{}</text>"#,
            (L + W - R) / 2.0,
            esc(&self.title)
        );
        // Grid and ticks.
        let yt: Vec<f64> = if log {
            let step = ((y1 - y0) / 6.0).ceil().max(1.0);
            (0..)
                .map(|k| y0 + k as f64 * step)
                .take_while(|t| *t <= y1 + 1e-9)
                .collect()
        } else {
            nice_ticks(y0, y1)
        };
        for t in yt {
            let y = H - B - (t - y0) / (y1 - y0) * (H - T - B);
            let label = if log {
                format!("1e{}", t as i64)
            } else {
                tick_label(t)
            };
            let _ = writeln!(
                s,
                r##"<line x1="{L}" y1="{y:.1}" x2="{}" y2="{y:.1}" stroke="#e5e5e5"/><text x="{}" y="{:.1}" text-anchor="end">{label}</text>"##,
                W - R,
                L - 6.0,
                y + 4.0
            );
        }
        for t in nice_ticks(x0, x1) {
            let x = px(t);
            let _ = writeln!(
                s,
                r##"<line x1="{x:.1}" y1="{T}" x2="{x:.1}" y2="{}" stroke="#eeeeee"/><text x="{x:.1}" y="{}" text-anchor="middle">{}</text>"##,
                H - B,
                H - B + 15.0,
                tick_label(t)
            );
        }
        let _ = writeln!(
            s,
            r#"<rect x="{L}" y="{T}" width="{}" height="{}" fill="none" stroke="black"/>"#,
            W - L - R,
            H - T - B
        );
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle">time (s)</text>"#,
            (L + W - R) / 2.0,
            H - 8.0
        );
        let _ = writeln!(
            s,
            r#"<text transform="translate(14,{}) rotate(-90)" text-anchor="middle">{}</text>"#,
            (T + H - B) / 2.0,
            esc(&self.ylabel)
        );
        // Lines (decimated to at most ~2 points per pixel column).
        let stride = (self.x.len() / 1200).max(1);
        for (k, line) in self.lines.iter().enumerate() {
            let mut pts = String::new();
            for (i, (&x, &y)) in self.x.iter().zip(&line.y).enumerate() {
                if (i % stride == 0 || i + 1 == self.x.len()) && y.is_finite() {
                    let _ = write!(pts, "{:.1},{:.1} ", px(x), py(y));
                }
            }
            let _ = writeln!(
                s,
                r#"<polyline fill="none" stroke="{}" stroke-width="1.5" points="{}"/>"#,
                line.color,
                pts.trim_end()
            );
            let (lx, ly) = (L + 10.0 + 130.0 * k as f64, T + 14.0);
            let _ = writeln!(
                s,
                r#"<rect x="{lx}" y="{}" width="14" height="3" fill="{}"/><text x="{}" y="{}">{}</text>"#,
                ly - 4.0,
                line.color,
                lx + 18.0,
                ly,
                esc(&line.name)
            );
        }
        let _ = writeln!(
            s,
            r##"<line class="cursor" x1="{L}" y1="{T}" x2="{L}" y2="{}" stroke="#d62728" stroke-width="1" visibility="hidden"/>"##,
            H - B
        );
        s.push_str("</svg>\n");
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_cover_the_range() {
        let t = nice_ticks(0.0, 3.0);
        assert_eq!(t.first(), Some(&0.0));
        assert!(t.last().unwrap() <= &3.0 && t.len() >= 3);
    }

    #[test]
    fn log_plot_of_zeros_falls_back_to_linear() {
        let p = TimePlot {
            title: "t".into(),
            ylabel: "y".into(),
            log_y: true,
            x: vec![0.0, 1.0],
            lines: vec![Line {
                name: "a".into(),
                color: "red".into(),
                y: vec![0.0, 0.0],
            }],
        };
        assert!(!p.y_range().2);
        assert!(p.to_svg().contains("<polyline"));
    }
}
