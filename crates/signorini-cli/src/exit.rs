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
            eprintln!("error: {}", message(&e));
            ExitCode::from(2)
        }
    }
}

/// The error and its causes, `a: b: c`, each cause once: an error that already shows its
/// source (an OS error in "cannot access F: No such file or directory (os error 2)") does not
/// get it repeated.
pub fn message(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let c = cause.to_string();
        if c.is_empty() || text.contains(&c) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&c);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cause_already_in_the_message_is_not_repeated() {
        #[derive(Debug)]
        struct Io {
            source: std::io::Error,
        }
        impl std::fmt::Display for Io {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "cannot access f: {}", self.source)
            }
        }
        impl std::error::Error for Io {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.source)
            }
        }
        let os = std::io::Error::from(std::io::ErrorKind::NotFound);
        let shown = os.to_string();
        let e = anyhow::Error::new(Io { source: os }).context("reading the scene");
        let m = message(&e);
        assert_eq!(m.matches(&shown).count(), 1, "{m}");
        assert!(m.starts_with("reading the scene: cannot access f"), "{m}");
    }
}
