//! The end of every `signorini experiment …`: run the filled-in parameters through the
//! experiments' common interface, print the report and where the outputs are, and turn the
//! verdict into the exit code.

use crate::exit::{BadInput, Outcome};
use signorini_experiments::Experiment;

/// Run an experiment whose parameters are filled in, print its report and where its outputs
/// are, and turn its verdict into the exit code (1 if a check failed).
pub fn finish(e: &dyn Experiment) -> Result<Outcome, BadInput> {
    crate::signals::note_output(e.out());
    let r = e.run().map_err(anyhow::Error::from)?;
    out!("{}", r.text);
    outln!("outputs in {}", e.out().display());
    Ok(match r.passed {
        Some(false) => Outcome::Failed,
        _ => Outcome::Success,
    })
}
