//! Mapping of outcomes to exit codes: 0 success, 1 ran-but-failed, 2 bad input.

use std::process::ExitCode;

/// What a subcommand ended with.
#[derive(Debug)]
pub enum Outcome {
    /// Ran, and every check passed.
    Success,
    /// Ran, but the problem was not solved or a check failed (exit 1).
    Failed,
}

/// Bad input: printed as `error: …` with exit code 2.
#[derive(Debug)]
pub struct BadInput(pub anyhow::Error);

impl<E: Into<anyhow::Error>> From<E> for BadInput {
    fn from(e: E) -> Self {
        BadInput(e.into())
    }
}

/// Print the error (if any) and turn the outcome into the process exit code.
pub fn report(outcome: Result<Outcome, BadInput>) -> ExitCode {
    match outcome {
        Ok(Outcome::Success) => ExitCode::SUCCESS,
        Ok(Outcome::Failed) => ExitCode::from(1),
        Err(BadInput(e)) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
