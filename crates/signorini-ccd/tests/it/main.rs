//! Integration tests of signorini-ccd (one binary; modules per topic).

mod benchmark;
mod bvh;
mod common;
mod degenerate;
mod props;
mod roots;
mod wxf;
