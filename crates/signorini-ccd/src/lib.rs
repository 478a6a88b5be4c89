//! Continuous collision detection (CCD) for linearly moving triangle-mesh features.
//!
//! Owns:
//! - [`toi`]: conservative vertex–face and edge–edge kernels on the normalised step `[0, 1]`,
//!   returning the first time of impact and every root of the coplanarity cubic with its inside
//!   test, from which CPF's penetration time intervals follow (Tang et al. 2012, §3.2, Fig. 3);
//! - [`bvh`] and [`mesh`]: a swept-AABB bounding-volume hierarchy broad phase over indexed
//!   triangle meshes (mesh–mesh and self-collision candidate pairs, refit per step, parallel
//!   with rayon, deterministic sorted output);
//! - [`interval`]: outward-rounded interval arithmetic used for the certified bounds;
//! - [`benchmark`]: the reader of the Wang et al. 2021 / Belgrod et al. rational query files.
//!
//! Does not own: collision response or penalty forces, rigid bodies, mesh generation.
//! See `docs/ccd.md` for guarantees, error bounds and benchmark numbers.

#![warn(missing_docs)]

pub mod benchmark;
pub mod bvh;
mod error;
pub mod interval;
pub mod mesh;
pub mod toi;

pub use error::{CcdError, MeshError, ParseError};
pub use mesh::SweptMesh;
pub use toi::{
    CcdReport, RootEnclosure, RootKind, edge_edge_ccd, edge_edge_first_toi, vertex_face_ccd,
    vertex_face_first_toi,
};
