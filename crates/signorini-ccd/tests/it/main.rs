//! Integration tests of signorini-ccd (one binary; modules per topic).

mod benchmark;
mod common;
