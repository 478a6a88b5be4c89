//! One module per subcommand.

pub mod ccd;
pub mod demo;
pub mod lcp;
