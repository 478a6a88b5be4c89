//! Contacts between rigid convex polyhedra (paper §4–§5.2, Eqs. 25–38): contact records with
//! 6-dof Jacobians, the geometric tests, the PEG constraint builder, the standard ε-distance
//! detector and the corrective detector.
//!
//! Conventions (docs/formulation-notes.md §2): a contact's point is on body `a`, its normal points from `a` into
//! `b`, the point on `b` is `point + gap · normal`; the Jacobian blocks are `[g_v; g_ω]` with
//! ω in the world frame; static bodies get no block. All polyhedra passed in are placed in the
//! world frame (`ConvexPolyhedron::transformed`). See `docs/peg3d.md` for where we follow the
//! paper, the reference code, or deviate.

mod constraints;
mod contact;
mod corrective;
mod geometric;
mod peg;
mod standard;

pub use constraints::ConstraintSet3;
pub use contact::{Contact3, Features3, Jacobian6, edge_edge_contact, vertex_face_contact};
pub use corrective::corrective_contacts3;
pub use geometric::{
    APPL_EE, APPL_VE_EDGES, APPL_VF_LONE, APPL_VV, COPLANAR_DOT, FEASIBILITY_ANGLE,
    FEASIBILITY_DEPTH, PARALLEL_SINE, applicability_ee, applicability_vf, edge_orientation,
    feasibility_ee, feasibility_vf, orientation_vector, segment_distance,
};
pub use peg::{Peg3Params, VertexVertex, peg_constraints3, peg3_detection_distance};
pub use standard::{
    SM3_ANGLE_TOLERANCE, SM3_DETECTION_DISTANCE, SM3_MIN_GAP_EE, SM3_MIN_GAP_VF, standard_contacts3,
};
