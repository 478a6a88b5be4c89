//! One module per subcommand.

pub mod ccd;
pub mod demo;
pub mod experiment;
pub mod lcp;
