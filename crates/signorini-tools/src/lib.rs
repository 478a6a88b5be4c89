//! Diagnostic probes used while developing Signorini, kept as examples of this unpublished
//! crate (`cargo run --release -p signorini-tools --example NAME -- ARGS`): `dump_step`
//! (replay one step of a pouring run), `eps_counts` (I + X counts per ε), `pour3d_worst`
//! (the worst steps of a 3D pour), `ring_rest` and `rings_crossings` (which rings cross, and
//! when), `cloth_step`, `kernel_loop` and `probe` (CCD kernels). The docs that cite their
//! figures say how each was run. Nothing here is part of the library's API.

#![warn(missing_docs)]
