//! `signorini lcp …` (to be filled by the complementarity work, issue #2).

use crate::exit::{BadInput, Outcome};
use clap::Subcommand;

/// `signorini lcp` subcommands.
#[derive(Subcommand, Debug)]
pub enum LcpCommand {}

/// Run an `lcp` subcommand.
pub fn run(cmd: LcpCommand) -> Result<Outcome, BadInput> {
    match cmd {}
}
