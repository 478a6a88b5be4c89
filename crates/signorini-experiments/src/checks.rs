//! The pass/fail checks printed under the pouring experiments' comparison tables.
//!
//! A check is passed, failed, or **not checked** when one of its inputs is missing (e.g.
//! "standard ≥ 100× PEG median" in a run with `--models standard,corrective`: there is no PEG
//! median to compare with). The verdict line says `PASS` only if every check had its inputs
//! and passed; missing inputs are named, never counted as a pass.
//!
//! Owns: the verdict and its wording, the baseline-ratio check shared by `pour2d` and `pour3d`
//! ([`baseline_ratio_check`], with its floor [`RATIO_FLOOR`]) and the table formatting of
//! numbers and ratios that may be undefined ([`fmt_ratio`], [`fmt_sci`]: "—" instead of `NaN`
//! or `inf`). Does not own: the other limits (in `pour2d`, `pour3d`).

/// Floor under PEG's median in the "baseline ≥ 100× PEG median" check (m² in 2D, m³ in 3D): a
/// PEG median of exactly 0 (every step of every run free of overlap) would make any baseline
/// pass against 0, so the baseline is compared with `max(PEG median, 1e-15)` instead.
pub(crate) const RATIO_FLOOR: f64 = 1e-15;

/// Factor by which the corrective baseline's median overlap must exceed PEG's.
pub(crate) const BASELINE_FACTOR: f64 = 100.0;

/// The "corrective ≥ 100× PEG median" check: `baseline ≥ 100 · max(peg, RATIO_FLOOR)`. False
/// for a non-finite input (a NaN median never passes).
pub(crate) fn baseline_ratio_check(baseline_median: f64, peg_median: f64) -> bool {
    baseline_median.is_finite()
        && peg_median.is_finite()
        && baseline_median >= BASELINE_FACTOR * peg_median.max(RATIO_FLOOR)
}

/// `a / b` in `{:.3e}` form, or "—" where the ratio is undefined (`b ≤ 0`, a missing or
/// non-finite input, or a non-finite quotient).
pub(crate) fn fmt_ratio(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if a.is_finite() && b.is_finite() && b > 0.0 && (a / b).is_finite() => {
            format!("{:.3e}", a / b)
        }
        _ => "—".into(),
    }
}

/// `a / b` with three decimals (time ratios), or "—" where undefined (see [`fmt_ratio`]).
pub(crate) fn fmt_ratio_fixed(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if a.is_finite() && b.is_finite() && b > 0.0 && (a / b).is_finite() => {
            format!("{:.3}", a / b)
        }
        _ => "—".into(),
    }
}

/// A number in `{:.3e}` form; exactly zero as `0`; "—" if missing or not finite.
pub(crate) fn fmt_sci(x: Option<f64>) -> String {
    match x {
        Some(0.0) => "0".into(),
        Some(x) if x.is_finite() => format!("{x:.3e}"),
        _ => "—".into(),
    }
}

/// A number with `decimals` decimals; "—" if not finite.
pub(crate) fn fmt_fixed(x: f64, decimals: usize) -> String {
    if x.is_finite() {
        format!("{x:.decimals$}")
    } else {
        "—".into()
    }
}

/// Checks collected over a comparison table.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Checks {
    passed: usize,
    failed: Vec<String>,
    unchecked: Vec<String>,
}

impl Checks {
    /// No checks yet.
    pub(crate) fn new() -> Checks {
        Checks::default()
    }

    /// Record a check named `name`: `Some(pass)` if its inputs were there, `None` if not.
    /// Names are kept once each (in first-seen order) in the verdict.
    pub(crate) fn check(&mut self, name: &str, outcome: Option<bool>) {
        let list = match outcome {
            Some(true) => {
                self.passed += 1;
                return;
            }
            Some(false) => &mut self.failed,
            None => &mut self.unchecked,
        };
        if !list.iter().any(|n| n == name) {
            list.push(name.to_string());
        }
    }

    /// No check failed (checks that could not be made do not fail the run).
    pub(crate) fn ok(&self) -> bool {
        self.failed.is_empty()
    }

    /// True if every recorded check was made and passed, and there was at least one.
    #[cfg(test)]
    fn all_checked_and_passed(&self) -> bool {
        self.ok() && self.unchecked.is_empty() && self.passed > 0
    }

    /// `PASS`, `FAIL (…)`, `not checked (…)`, or `PASS where checked; not checked: …`.
    pub(crate) fn verdict(&self) -> String {
        let not = |v: &[String]| format!("not checked (input missing): {}", v.join("; "));
        match (
            self.failed.is_empty(),
            self.unchecked.is_empty(),
            self.passed,
        ) {
            (false, true, _) => format!("FAIL: {}", self.failed.join("; ")),
            (false, false, _) => {
                format!("FAIL: {}; {}", self.failed.join("; "), not(&self.unchecked))
            }
            (true, true, 0) => "not checked (no check applies)".into(),
            (true, true, _) => "PASS".into(),
            (true, false, 0) => not(&self.unchecked),
            (true, false, _) => format!("PASS where checked; {}", not(&self.unchecked)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_inputs_are_not_a_pass() {
        // `--models standard,corrective`: no PEG run, so no PEG check can be made.
        let mut c = Checks::new();
        c.check("standard >= 100x PEG median", None);
        c.check("standard >= 100x PEG median", None);
        assert!(c.ok() && !c.all_checked_and_passed());
        assert_eq!(
            c.verdict(),
            "not checked (input missing): standard >= 100x PEG median"
        );
        c.check("PEG max", Some(true));
        assert!(c.verdict().starts_with("PASS where checked; not checked"));
        assert!(!c.verdict().starts_with("PASS\n") && c.verdict() != "PASS");
    }

    #[test]
    fn a_zero_peg_median_is_compared_with_the_floor_not_with_zero() {
        // Against 0, any baseline median would pass; against the 1e-15 floor, 5e-14 does not.
        assert!(!baseline_ratio_check(5e-14, 0.0));
        assert!(baseline_ratio_check(1e-13, 0.0));
        assert!(!baseline_ratio_check(0.0, 0.0));
        // Above the floor, the PEG median itself counts.
        assert!(baseline_ratio_check(1e-8, 1e-10));
        assert!(!baseline_ratio_check(0.99e-8, 1e-10));
        assert!(!baseline_ratio_check(f64::NAN, 0.0));
        assert!(!baseline_ratio_check(1.0, f64::NAN));
    }

    #[test]
    fn undefined_ratios_print_a_dash() {
        assert_eq!(fmt_ratio(Some(1.0), Some(0.0)), "—");
        assert_eq!(fmt_ratio(Some(0.0), Some(0.0)), "—");
        assert_eq!(fmt_ratio(None, Some(1.0)), "—");
        assert_eq!(fmt_ratio(Some(f64::NAN), Some(1.0)), "—");
        assert_eq!(fmt_ratio(Some(1.0), Some(1e-320)), "—"); // overflows to inf
        assert_eq!(fmt_ratio(Some(2.0), Some(4.0)), "5.000e-1");
        assert_eq!(fmt_ratio_fixed(Some(1.0), None), "—");
        assert_eq!(fmt_ratio_fixed(Some(1.0), Some(4.0)), "0.250");
        assert_eq!(fmt_sci(Some(0.0)), "0");
        assert_eq!(fmt_sci(Some(f64::INFINITY)), "—");
        assert_eq!(fmt_sci(None), "—");
        assert_eq!(fmt_sci(Some(1.5e-17)), "1.500e-17");
        assert_eq!(fmt_fixed(f64::NAN, 2), "—");
        assert_eq!(fmt_fixed(1.234, 2), "1.23");
        // Right-aligned in a table column, the dash counts as one character.
        assert_eq!(format!("{:>5}", fmt_ratio(None, None)), "    —");
    }

    #[test]
    fn verdicts() {
        let mut c = Checks::new();
        assert_eq!(c.verdict(), "not checked (no check applies)");
        c.check("a", Some(true));
        assert_eq!(c.verdict(), "PASS");
        assert!(c.all_checked_and_passed());
        c.check("b", Some(false));
        assert!(!c.ok());
        assert_eq!(c.verdict(), "FAIL: b");
        c.check("c", None);
        assert_eq!(c.verdict(), "FAIL: b; not checked (input missing): c");
    }
}
