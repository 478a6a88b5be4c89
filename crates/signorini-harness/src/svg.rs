//! The project's one SVG plotter: line plots written by hand (no fonts or system libraries are
//! needed to produce them; text is rendered by the viewer), so outputs are byte-identical
//! across runs.
//!
//! Owns: [`Plot`] (the experiments' figures: [`Series`] of `(x, y, y_low, y_high)` points with
//! markers and vertical error bars, legend on the right; on a log axis values ≤ 0 are drawn at
//! the bottom of the axis, the floor is 1e-20; the x axis is linear, or logarithmic with
//! [`Plot::log_x`]) and [`TimePlot`] (the scene report's time series: [`Line`]s over one time
//! axis, legend on top; the SVG root carries `data-x0/x1` (data range) and `data-px0/px1`
//! (pixel range) so the report's script can draw a cursor at the replay's current time), and
//! [`Bars`] (grouped bars with a marker each on a logarithmic axis: the ablation's figure).
//! All draw through one `Frame` (canvas, title, axes, grid lines, labels, polylines).

use std::fmt::Write;

/// Canvas size, margins and text placement of one kind of plot.
struct Frame {
    /// Width and height (px).
    w: f64,
    h: f64,
    /// Margins: left, right, top, bottom (px).
    l: f64,
    r: f64,
    t: f64,
    b: f64,
    /// Baseline and size of the title.
    title_y: f64,
    title_size: u32,
    /// Baseline of the x label above the bottom edge; x of the (rotated) y label.
    xlabel_dy: f64,
    ylabel_x: f64,
    /// Gap between the y tick labels and the plot area.
    tick_gap: f64,
}

impl Frame {
    /// Plot-area pixel of a transformed x in `[x0, x1]`.
    fn px(&self, x: f64, (x0, x1): (f64, f64)) -> f64 {
        self.l + (x - x0) / (x1 - x0) * (self.w - self.l - self.r)
    }

    /// Plot-area pixel of a transformed y in `[y0, y1]` (not clamped).
    fn py(&self, y: f64, (y0, y1): (f64, f64)) -> f64 {
        self.h - self.b - (y - y0) / (y1 - y0) * (self.h - self.t - self.b)
    }

    /// `<svg …>` with `attrs` between the namespace and the size, the white background and
    /// the title.
    fn open(&self, s: &mut String, attrs: &str, font_size: u32, title: &str) {
        let (w, h) = (self.w, self.h);
        let _ = writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg"{attrs} width="{w}" height="{h}" font-family="sans-serif" font-size="{font_size}">"#
        );
        let _ = writeln!(s, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle" font-size="{}">{}</text>"#,
            (self.l + w - self.r) / 2.0,
            self.title_y,
            self.title_size,
            esc(title)
        );
    }

    /// The plot area's border.
    fn border(&self, s: &mut String) {
        let _ = writeln!(
            s,
            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="black"/>"#,
            self.l,
            self.t,
            self.w - self.l - self.r,
            self.h - self.t - self.b
        );
    }

    /// A horizontal grid line at pixel `y` with its tick label on the left.
    fn y_tick(&self, s: &mut String, y: f64, label: &str) {
        let _ = writeln!(
            s,
            r##"<line x1="{}" y1="{y:.1}" x2="{}" y2="{y:.1}" stroke="#ddd"/><text x="{}" y="{:.1}" text-anchor="end">{label}</text>"##,
            self.l,
            self.w - self.r,
            self.l - self.tick_gap,
            y + 4.0
        );
    }

    /// The axis labels: x centred below the plot, y rotated on the left.
    fn labels(&self, s: &mut String, xlabel: &str, ylabel: &str) {
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
            (self.l + self.w - self.r) / 2.0,
            self.h - self.xlabel_dy,
            esc(xlabel)
        );
        let (x, y) = (self.ylabel_x, (self.t + self.h - self.b) / 2.0);
        let _ = writeln!(
            s,
            r#"<text x="{x}" y="{y}" text-anchor="middle" transform="rotate(-90 {x} {y})">{}</text>"#,
            esc(ylabel)
        );
    }
}

/// A polyline through `points` (already formatted `x,y` pixel pairs).
fn polyline(s: &mut String, points: &[String], color: &str, dash: &str) {
    let _ = writeln!(
        s,
        r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="1.5"{dash}/>"#,
        points.join(" ")
    );
}

fn esc(t: &str) -> String {
    t.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

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

/// A figure of [`Series`] (the experiments' plots).
#[derive(Debug, Clone)]
pub struct Plot {
    title: String,
    xlabel: String,
    ylabel: String,
    log_y: bool,
    log_x: bool,
    series: Vec<Series>,
}

const FIGURE: Frame = Frame {
    w: 820.0,
    h: 520.0,
    l: 90.0,
    r: 230.0,
    t: 50.0,
    b: 60.0,
    title_y: 25.0,
    title_size: 15,
    xlabel_dy: 15.0,
    ylabel_x: 20.0,
    tick_gap: 5.0,
};
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
        let f = &FIGURE;
        let (xr, yr) = self.ranges();
        let px = |x: f64| f.px(self.tx(x), xr);
        let py = |y: f64| f.py(self.ty(y).clamp(yr.0, yr.1), yr);
        let (y0, y1) = yr;
        let mut s = String::new();
        f.open(&mut s, "", 12, &self.title);
        f.border(&mut s);
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
            let label = if self.log_y {
                format!("1e{t:.0}")
            } else {
                format!("{t:.3}")
            };
            f.y_tick(&mut s, f.py(t, yr), &label);
        }
        let mut xt = xr.0.ceil();
        while xt <= xr.1 {
            let (at, label) = if self.log_x {
                (10f64.powf(xt), format!("1e{xt:.0}"))
            } else {
                (xt, format!("{xt:.0}"))
            };
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{}" text-anchor="middle">{label}</text>"#,
                px(at),
                f.h - f.b + 18.0
            );
            xt += 1.0;
        }
        f.labels(&mut s, &self.xlabel, &self.ylabel);
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
            polyline(&mut s, &pts, &ser.color, dash);
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
            let ly = f.t + 15.0 + 20.0 * k as f64;
            let _ = writeln!(
                s,
                r#"<line x1="{0}" y1="{ly}" x2="{1}" y2="{ly}" stroke="{2}" stroke-width="2"{dash}/><text x="{3}" y="{4}">{5}</text>"#,
                f.w - f.r + 15.0,
                f.w - f.r + 45.0,
                ser.color,
                f.w - f.r + 52.0,
                ly + 4.0,
                esc(&ser.name)
            );
        }
        s.push_str("</svg>\n");
        s
    }
}

/// One line of a [`TimePlot`].
#[derive(Debug, Clone)]
pub struct Line {
    /// Legend label.
    pub name: String,
    /// CSS colour.
    pub color: String,
    /// y values (same length as the plot's x).
    pub y: Vec<f64>,
}

/// Several lines over one time axis (the scene report's plots).
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

const PANEL: Frame = Frame {
    w: 640.0,
    h: 300.0,
    l: 78.0,
    r: 16.0,
    t: 34.0,
    b: 44.0,
    title_y: 20.0,
    title_size: 13,
    xlabel_dy: 8.0,
    ylabel_x: 14.0,
    tick_gap: 6.0,
};

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
        let f = &PANEL;
        let x0 = self.x.first().copied().unwrap_or(0.0);
        let x1 = self.x.last().copied().unwrap_or(1.0).max(x0 + 1e-12);
        let (y0, y1, log) = self.y_range();
        let px = |x: f64| f.px(x, (x0, x1));
        let ty = |y: f64| {
            if log {
                if y > 0.0 { y.log10().max(y0) } else { y0 }
            } else {
                y
            }
        };
        let py = |y: f64| f.py(ty(y).clamp(y0, y1), (y0, y1));
        let mut s = String::new();
        let attrs = format!(
            r#" class="plot" viewBox="0 0 {} {}" data-x0="{x0}" data-x1="{x1}" data-px0="{}" data-px1="{}""#,
            f.w,
            f.h,
            f.l,
            f.w - f.r
        );
        f.open(&mut s, &attrs, 11, &self.title);
        f.border(&mut s);
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
            let label = if log {
                format!("1e{}", t as i64)
            } else {
                tick_label(t)
            };
            f.y_tick(&mut s, f.py(t, (y0, y1)), &label);
        }
        for t in nice_ticks(x0, x1) {
            let x = px(t);
            let _ = writeln!(
                s,
                r##"<line x1="{x:.1}" y1="{}" x2="{x:.1}" y2="{}" stroke="#eee"/><text x="{x:.1}" y="{}" text-anchor="middle">{}</text>"##,
                f.t,
                f.h - f.b,
                f.h - f.b + 15.0,
                tick_label(t)
            );
        }
        f.labels(&mut s, "time (s)", &self.ylabel);
        // Lines (decimated to at most ~2 points per pixel column).
        let stride = (self.x.len() / 1200).max(1);
        for (k, line) in self.lines.iter().enumerate() {
            let pts: Vec<String> = self
                .x
                .iter()
                .zip(&line.y)
                .enumerate()
                .filter(|&(i, (_, y))| (i % stride == 0 || i + 1 == self.x.len()) && y.is_finite())
                .map(|(_, (&x, &y))| format!("{:.1},{:.1}", px(x), py(y)))
                .collect();
            polyline(&mut s, &pts, &line.color, "");
            let (lx, ly) = (f.l + 10.0 + 130.0 * k as f64, f.t + 14.0);
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
            r##"<line class="cursor" x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#d62728" stroke-width="1" visibility="hidden"/>"##,
            f.l,
            f.t,
            f.h - f.b
        );
        s.push_str("</svg>\n");
        s
    }
}

/// One series of a [`Bars`] chart: a bar per category and a marker above it.
#[derive(Debug, Clone)]
pub struct BarSeries {
    /// Legend label.
    pub name: String,
    /// CSS colour.
    pub color: String,
    /// Per category: `(bar, marker)` (e.g. median and maximum); NaN leaves the category
    /// empty.
    pub values: Vec<(f64, f64)>,
}

/// Grouped bars on a logarithmic y axis: one group per category (labelled below the axis),
/// one bar per [`BarSeries`] in each group, reaching the bar value, with a hollow marker at
/// the marker value joined to the bar's top. Values ≤ 0 draw no bar and a "0" at the
/// bottom of the axis (its range covers the positive values only).
#[derive(Debug, Clone)]
pub struct Bars {
    /// Title.
    pub title: String,
    /// x-axis label (what the categories are).
    pub xlabel: String,
    /// y-axis label (with unit).
    pub ylabel: String,
    /// What the bar and the marker show (a line below the legend), e.g. "bar: median, o: max".
    pub key: String,
    /// Category labels, left to right.
    pub categories: Vec<String>,
    /// Series, drawn left to right within each group.
    pub series: Vec<BarSeries>,
}

const BARS: Frame = Frame {
    w: 1000.0,
    h: 520.0,
    l: 90.0,
    r: 250.0,
    t: 50.0,
    b: 60.0,
    title_y: 25.0,
    title_size: 15,
    xlabel_dy: 15.0,
    ylabel_x: 20.0,
    tick_gap: 5.0,
};

impl Bars {
    /// The decades the axis covers (log10 of the positive finite values, floored and ceiled).
    fn y_range(&self) -> (f64, f64) {
        let logs = self
            .series
            .iter()
            .flat_map(|s| s.values.iter().flat_map(|&(a, b)| [a, b]))
            .filter(|v| v.is_finite() && *v > 0.0)
            .map(|v| v.max(LOG_FLOOR).log10());
        let (lo, hi) = logs.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
            (l.min(v), h.max(v))
        });
        if !lo.is_finite() {
            return (0.0, 1.0);
        }
        (lo.floor(), hi.ceil().max(lo.floor() + 1.0))
    }

    /// Render.
    pub fn to_svg(&self) -> String {
        let f = &BARS;
        let (y0, y1) = self.y_range();
        let py = |v: f64| f.py(v.log10().clamp(y0, y1), (y0, y1));
        let mut s = String::new();
        f.open(&mut s, "", 12, &self.title);
        f.border(&mut s);
        let step = ((y1 - y0) / 10.0).ceil().max(1.0);
        let mut t = y0;
        while t <= y1 + 1e-9 {
            f.y_tick(&mut s, f.py(t, (y0, y1)), &format!("1e{t:.0}"));
            t += step;
        }
        f.labels(&mut s, &self.xlabel, &self.ylabel);
        let n = self.categories.len().max(1) as f64;
        let group = (f.w - f.l - f.r) / n;
        let bar = 0.8 * group / self.series.len().max(1) as f64;
        let bottom = f.h - f.b;
        for (c, label) in self.categories.iter().enumerate() {
            let x0 = f.l + group * c as f64 + 0.1 * group;
            if c > 0 {
                let x = f.l + group * c as f64;
                let _ = writeln!(
                    s,
                    r##"<line x1="{x:.1}" y1="{}" x2="{x:.1}" y2="{bottom}" stroke="#ddd"/>"##,
                    f.t
                );
            }
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{}" text-anchor="middle">{}</text>"#,
                f.l + group * (c as f64 + 0.5),
                bottom + 18.0,
                esc(label)
            );
            for (k, ser) in self.series.iter().enumerate() {
                let Some(&(v, m)) = ser.values.get(c) else {
                    continue;
                };
                let x = x0 + bar * k as f64;
                let xc = x + bar / 2.0;
                if v.is_finite() && v > 0.0 {
                    let top = py(v);
                    let _ = writeln!(
                        s,
                        r#"<rect x="{x:.1}" y="{top:.1}" width="{:.1}" height="{:.1}" fill="{}"/>"#,
                        bar * 0.9,
                        bottom - top,
                        ser.color
                    );
                } else if v == 0.0 {
                    let _ = writeln!(
                        s,
                        r#"<text x="{xc:.1}" y="{}" text-anchor="middle" font-size="10" fill="{}">0</text>"#,
                        bottom - 3.0,
                        ser.color
                    );
                }
                if m.is_finite() && m > 0.0 {
                    let from = if v.is_finite() && v > 0.0 {
                        py(v)
                    } else {
                        bottom
                    };
                    let _ = writeln!(
                        s,
                        r#"<line x1="{xc:.1}" y1="{from:.1}" x2="{xc:.1}" y2="{:.1}" stroke="{1}"/><circle cx="{xc:.1}" cy="{0:.1}" r="3" fill="white" stroke="{1}"/>"#,
                        py(m),
                        ser.color
                    );
                }
            }
        }
        for (k, ser) in self.series.iter().enumerate() {
            let ly = f.t + 15.0 + 20.0 * k as f64;
            let _ = writeln!(
                s,
                r#"<rect x="{}" y="{}" width="24" height="10" fill="{}"/><text x="{}" y="{}">{}</text>"#,
                f.w - f.r + 15.0,
                ly - 5.0,
                ser.color,
                f.w - f.r + 45.0,
                ly + 4.0,
                esc(&ser.name)
            );
        }
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}">{}</text>"#,
            f.w - f.r + 15.0,
            f.t + 19.0 + 20.0 * self.series.len() as f64,
            esc(&self.key)
        );
        s.push_str("</svg>\n");
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_draw_positive_values_and_mark_zeros() {
        let b = Bars {
            title: "t".into(),
            xlabel: "x".into(),
            ylabel: "y".into(),
            key: "bar: median, o: max".into(),
            categories: vec!["a".into(), "b".into()],
            series: vec![BarSeries {
                name: "s".into(),
                color: "red".into(),
                values: vec![(1e-3, 1e-1), (0.0, 1e-2)],
            }],
        };
        assert_eq!(b.y_range(), (-3.0, -1.0));
        let svg = b.to_svg();
        assert_eq!(
            svg.matches(r#"fill="red"/>"#).count(),
            2,
            "one bar and one legend swatch"
        );
        assert_eq!(svg.matches("<circle").count(), 2);
        assert!(svg.contains(">0</text>"));
    }

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
