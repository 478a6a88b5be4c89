//! Integration tests of signorini-ccd (one binary; modules per topic).

mod benchmark;
mod bvh;
mod common;
mod degenerate;
mod fuzz;
#[path = "../../../signorini-scene/tests/it/fuzzing.rs"]
mod fuzzing;
mod props;
mod roots;
mod wxf;
