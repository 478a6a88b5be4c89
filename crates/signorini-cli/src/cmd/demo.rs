//! The default job: what `signorini` runs with no arguments.

use crate::exit::{BadInput, Outcome};

/// Run the default job.
pub fn run() -> Result<Outcome, BadInput> {
    println!("signorini: no default job yet");
    Ok(Outcome::Success)
}
