//! Deformable triangle meshes for penalty contact (CPF paper §4: cloth, soft bodies).
//!
//! Owns: [`Deformable`] — a triangle mesh whose every vertex is a point mass, held together by
//! springs ([`springs`]: stretch springs on the mesh edges, bending springs across interior
//! edges) with spring damping, optionally pressurised when the mesh is closed ([`pressure`]:
//! a soft shell keeps its volume), pinned vertices, gravity, and the explicit (symplectic Euler)
//! predictor `v* = v + h M⁻¹ f(x, v)` that the penalty stepper corrects with contact impulses.
//! Also the energy whose negative gradient the forces are (tested by finite differences).
//!
//! Does not own: contact (`signorini-penalty` impulses, `signorini-world::penalty` stepper),
//! meshes (`signorini-geometry::mesh`).
//!
//! Why mass-spring shells and not tetrahedral FEM for soft solids: the CPF paper's soft bodies
//! (its tori and the bodies poured into its bucket; this project builds soft tori, spheres and
//! rounded boxes, see the `cloth-tori` and `bucket` experiments) are simulated in SOFA as
//! surface meshes and only their surface collides; a pressurised mass-spring shell keeps the collision mesh identical to the
//! simulated one (no embedding), needs no tetrahedralisation of OBJ input, and its energy is
//! simple enough to check against finite differences. Its limits (no volumetric shear
//! stiffness) are documented in `docs/deformable.md`.

#![warn(missing_docs)]

pub mod model;
pub mod pressure;
pub mod springs;

pub use model::{Deformable, DeformableError, Material};
pub use springs::{Spring, SpringKind};
