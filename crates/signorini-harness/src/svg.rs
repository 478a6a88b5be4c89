//! Minimal SVG line plots with error bars, written by hand (no fonts or system libraries are
//! needed to produce them; text is rendered by the viewer).
//!
//! Owns: [`Plot`] and [`Series`]. Points are `(x, y, y_low, y_high)`; on a log axis values
//! ≤ 0 are drawn at the bottom of the axis (the floor is 1e-20); the x axis is linear, or
//! logarithmic with [`Plot::log_x`].

use std::fmt::Write;

/// One line with markers and vertical error bars.
#[derive(Debug, Clone)]
pub struct Series {
    /// Legend label.
    pub name: String,
    /// CSS colour.
    pub color: String,
    /// Dashed line and hollow markers (used for the authors' reference data).
    pub dashed: bool,
    /// `(x, y, y_low, y_high)`.
    pub points: Vec<(f64, f64, f64, f64)>,
}

/// A plot.
#[derive(Debug, Clone)]
pub struct Plot {
    title: String,
    xlabel: String,
    ylabel: String,
    log_y: bool,
    log_x: bool,
    series: Vec<Series>,
}

const W: f64 = 820.0;
const H: f64 = 520.0;
const L: f64 = 90.0;
const R: f64 = 230.0;
const T: f64 = 50.0;
const B: f64 = 60.0;
const LOG_FLOOR: f64 = 1e-20;

impl Plot {
    /// An empty plot.
    pub fn new(title: &str, xlabel: &str, ylabel: &str, log_y: bool) -> Plot {
        Plot {
            title: title.into(),
            xlabel: xlabel.into(),
            ylabel: ylabel.into(),
            log_y,
            log_x: false,
            series: Vec::new(),
        }
    }

    /// Logarithmic x axis (decade ticks `1eK`; x ≤ 0 is drawn at the floor).
    pub fn log_x(mut self) -> Plot {
        self.log_x = true;
        self
    }

    fn tx(&self, x: f64) -> f64 {
        if self.log_x {
            x.max(LOG_FLOOR).log10()
        } else {
            x
        }
    }

    /// Add a series.
    pub fn add(&mut self, s: Series) {
        self.series.push(s);
    }

    fn ty(&self, y: f64) -> f64 {
        if self.log_y {
            y.max(LOG_FLOOR).log10()
        } else {
            y
        }
    }

    fn ranges(&self) -> ((f64, f64), (f64, f64)) {
        let (mut x0, mut x1, mut y0, mut y1) = (
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
        );
        for s in &self.series {
            for &(x, y, lo, hi) in &s.points {
                for v in [y, lo, hi]
                    .map(|v| self.ty(v))
                    .into_iter()
                    .filter(|v| v.is_finite())
                {
                    y0 = y0.min(v);
                    y1 = y1.max(v);
                }
                let x = self.tx(x);
                if x.is_finite() {
                    x0 = x0.min(x);
                    x1 = x1.max(x);
                }
            }
        }
        if !x0.is_finite() {
            (x0, x1) = (0.0, 1.0);
        }
        if !y0.is_finite() {
            (y0, y1) = (0.0, 1.0);
        }
        if self.log_y {
            (y0, y1) = (y0.floor(), y1.ceil().max(y0.floor() + 1.0));
        } else {
            (y0, y1) = (y0.min(0.0), if y1 > y0 { y1 * 1.05 } else { y0 + 1.0 });
        }
        ((x0 - 0.5, x1 + 0.5), (y0, y1))
    }

    /// Render.
    pub fn to_svg(&self) -> String {
        let ((x0, x1), (y0, y1)) = self.ranges();
        let px = |x: f64| L + (self.tx(x) - x0) / (x1 - x0) * (W - L - R);
        let py = |y: f64| H - B - (self.ty(y).clamp(y0, y1) - y0) / (y1 - y0) * (H - T - B);
        let mut s = String::new();
        let _ = writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">"#
        );
        let _ = writeln!(s, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
        let _ = writeln!(
            s,
            r#"<text x="{}" y="25" text-anchor="middle" font-size="15">{}</text>"#,
            (L + W - R) / 2.0,
            esc(&self.title)
        );
        let _ = writeln!(
            s,
            r#"<rect x="{L}" y="{T}" width="{}" height="{}" fill="none" stroke="black"/>"#,
            W - L - R,
            H - T - B
        );
        // y ticks
        let ticks: Vec<f64> = if self.log_y {
            let step = ((y1 - y0) / 10.0).ceil().max(1.0);
            let mut v = Vec::new();
            let mut t = y0;
            while t <= y1 + 1e-9 {
                v.push(t);
                t += step;
            }
            v
        } else {
            (0..=5).map(|k| y0 + (y1 - y0) * k as f64 / 5.0).collect()
        };
        for t in ticks {
            let y = H - B - (t - y0) / (y1 - y0) * (H - T - B);
            let label = if self.log_y {
                format!("1e{t:.0}")
            } else {
                format!("{t:.3}")
            };
            let _ = writeln!(
                s,
                r##"<line x1="{L}" y1="{y:.1}" x2="{}" y2="{y:.1}" stroke="#ddd"/><text x="{}" y="{:.1}" text-anchor="end">{label}</text>"##,
                W - R,
                L - 5.0,
                y + 4.0
            );
        }
        let mut xt = x0.ceil();
        while xt <= x1 {
            let (at, label) = if self.log_x {
                (10f64.powf(xt), format!("1e{xt:.0}"))
            } else {
                (xt, format!("{xt:.0}"))
            };
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{}" text-anchor="middle">{label}</text>"#,
                px(at),
                H - B + 18.0
            );
            xt += 1.0;
        }
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
            (L + W - R) / 2.0,
            H - 15.0,
            esc(&self.xlabel)
        );
        let _ = writeln!(
            s,
            r#"<text x="20" y="{}" text-anchor="middle" transform="rotate(-90 20 {})">{}</text>"#,
            (T + H - B) / 2.0,
            (T + H - B) / 2.0,
            esc(&self.ylabel)
        );
        for (k, ser) in self.series.iter().enumerate() {
            let dash = if ser.dashed {
                r#" stroke-dasharray="6 4""#
            } else {
                ""
            };
            let pts: Vec<String> = ser
                .points
                .iter()
                .filter(|p| p.1.is_finite())
                .map(|p| format!("{:.1},{:.1}", px(p.0), py(p.1)))
                .collect();
            let _ = writeln!(
                s,
                r#"<polyline points="{}" fill="none" stroke="{}" stroke-width="1.5"{dash}/>"#,
                pts.join(" "),
                ser.color
            );
            for &(x, y, lo, hi) in ser.points.iter().filter(|p| p.1.is_finite()) {
                let fill = if ser.dashed {
                    "white"
                } else {
                    ser.color.as_str()
                };
                if lo.is_finite() && hi.is_finite() && (lo != y || hi != y) {
                    let _ = writeln!(
                        s,
                        r#"<line x1="{0:.1}" y1="{1:.1}" x2="{0:.1}" y2="{2:.1}" stroke="{3}"/>"#,
                        px(x),
                        py(lo),
                        py(hi),
                        ser.color
                    );
                }
                let _ = writeln!(
                    s,
                    r#"<circle cx="{:.1}" cy="{:.1}" r="3.5" fill="{fill}" stroke="{}"/>"#,
                    px(x),
                    py(y),
                    ser.color
                );
            }
            let ly = T + 15.0 + 20.0 * k as f64;
            let _ = writeln!(
                s,
                r#"<line x1="{0}" y1="{ly}" x2="{1}" y2="{ly}" stroke="{2}" stroke-width="2"{dash}/><text x="{3}" y="{4}">{5}</text>"#,
                W - R + 15.0,
                W - R + 45.0,
                ser.color,
                W - R + 52.0,
                ly + 4.0,
                esc(&ser.name)
            );
        }
        s.push_str("</svg>\n");
        s
    }
}

fn esc(t: &str) -> String {
    t.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
