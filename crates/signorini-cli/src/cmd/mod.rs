//! One module per subcommand.

pub mod bench;
pub mod ccd;
pub mod deform_exp;
pub mod experiment;
pub mod finish;
pub mod lcp;
pub mod penalty_exp;
pub mod pile_exp;
pub mod scene;
