//! `signorini ccd …` (to be filled by the CCD work, issue #5).

use crate::exit::{BadInput, Outcome};
use clap::Subcommand;

/// `signorini ccd` subcommands.
#[derive(Subcommand, Debug)]
pub enum CcdCommand {}

/// Run a `ccd` subcommand.
pub fn run(cmd: CcdCommand) -> Result<Outcome, BadInput> {
    match cmd {}
}
