//! Limits on every count and size a scene file can give (reference: `docs/scene-format.md`,
//! "Limits"). Validation checks each count against its limit *before* anything of that size
//! is allocated, so a hostile file (`segments = 1000000000`, `copies = 1e18`, a
//! 100000 × 100000 cloth) is a located error naming the field, the value and the limit,
//! never a "capacity overflow" panic or an allocation abort. A run's memory is estimated
//! separately (`memory.rs`).

/// Segments around a procedural mesh (`primitive` `segments`).
pub const MAX_SEGMENTS: usize = 4096;
/// Rings of a procedural mesh (`primitive` `rings`).
pub const MAX_RINGS: usize = 4096;
/// Bands up a bucket's wall (`primitive` `stacks`).
pub const MAX_STACKS: usize = 4096;
/// Cells along one side of a cloth grid (`grid` `cells`).
pub const MAX_GRID_CELLS: usize = 1000;
/// Triangles of one mesh (a primitive or grid, predicted from its counts before it is
/// built; a mesh file, after it is read).
pub const MAX_MESH_TRIANGLES: usize = 500_000;
/// Vertices of one 2D polygon (`polygon` `vertices`, `regular_polygon` `sides`).
pub const MAX_POLYGON_VERTICES: usize = 1024;
/// Points of one 2D `convex_hull` (the hull itself must have at most
/// [`MAX_POLYGON_VERTICES`] corners). 3D hulls and polyhedra take at most
/// `signorini_geometry::dim3::MAX_HULL_POINTS` points.
pub const MAX_HULL_POINTS_2D: usize = 10_000;
/// Bodies of a scene, after `copies` and body sets are expanded (also the most `copies` of
/// one body).
pub const MAX_BODIES: usize = 100_000;
/// Steps of a run (`steps`, or `duration / h`, also with `--dt`).
pub const MAX_STEPS: usize = 100_000_000;
/// Internal-force sub-steps of a deformable step (`[deformables] substeps`).
pub const MAX_SUBSTEPS: usize = 10_000;
/// PEG gap-correction re-solves per step (`contact.gap_corrections`).
pub const MAX_GAP_CORRECTIONS: usize = 1000;
/// Sites per side of a body-set lattice (`lattice.columns`).
pub const MAX_LATTICE_COLUMNS: usize = 100_000;
/// First site of a body-set lattice (`lattice.first_site`).
pub const MAX_LATTICE_SITE: usize = 1_000_000_000;
/// Characters of a scene `name` (it names the output folder `out/<name>`).
pub const MAX_NAME_CHARS: usize = 100;

/// The end of the message of a count above its limit: "above the limit of …".
pub(crate) fn above(limit: usize, what: &str) -> String {
    format!("above the limit of {limit} {what} (docs/scene-format.md, \"Limits\")")
}

/// Triangles of a procedural mesh, from its resolution (the formulas of
/// `signorini_geometry::mesh::shapes`, with their clamping to the smallest valid values;
/// saturating, so that any input gives a number to compare with the limit).
pub(crate) fn primitive_triangles(
    kind: &str,
    segments: usize,
    rings: usize,
    stacks: usize,
) -> u128 {
    let (n, m, s) = (segments as u128, rings as u128, stacks as u128);
    let mul = |a: u128, b: u128| a.saturating_mul(b);
    match kind {
        // 2·ns·(nt − 1), ns ≥ 3, nt ≥ 2.
        "sphere" | "rounded_box" => mul(2 * n.max(3), m.max(2) - 1),
        // 12 n², n ≥ 1.
        "cube_sphere" | "rounded_cube" => mul(12 * n.max(1), n.max(1)),
        // 2 nu nv, both ≥ 3.
        "torus" => mul(2 * n.max(3), m.max(3)),
        "cylinder" => 4 * n.max(3),
        // n + 2 n (rings + stacks − 1).
        "bucket" => mul(2 * n.max(3), m.max(1) + s.max(1) - 1).saturating_add(n.max(3)),
        // n (2 rings − 1).
        "bowl" => mul(n.max(3), 2 * m.max(1) - 1),
        // 240 k² + 64 k rings (mantle less the eight patches, eight arms with their tips).
        "octopus" => mul(240 * n.max(1), n.max(1)).saturating_add(mul(64 * n.max(1), m.max(1))),
        _ => 12,
    }
}

/// Triangles of an `nx × ny` cloth grid.
pub(crate) fn grid_triangles(nx: usize, ny: usize) -> u128 {
    (2 * nx.max(1) as u128).saturating_mul(ny.max(1) as u128)
}

#[cfg(test)]
mod tests {
    use super::*;
    use signorini_geometry::mesh::shapes;

    #[test]
    fn predicted_triangle_counts_match_the_shapes() {
        let t = |m: Result<signorini_geometry::mesh::TriMesh, _>| {
            m.expect("valid mesh").triangles().len() as u128
        };
        assert_eq!(
            primitive_triangles("sphere", 7, 5, 0),
            t(shapes::sphere(1.0, 7, 5))
        );
        assert_eq!(
            primitive_triangles("cube_sphere", 3, 0, 0),
            t(shapes::cube_sphere(1.0, 3))
        );
        assert_eq!(
            primitive_triangles("torus", 5, 4, 0),
            t(shapes::torus(1.0, 0.2, 5, 4))
        );
        assert_eq!(
            primitive_triangles("cylinder", 6, 0, 0),
            t(shapes::cylinder(1.0, 1.0, 6))
        );
        assert_eq!(
            primitive_triangles("bucket", 6, 2, 3),
            t(shapes::bucket(1.0, 1.0, 6, 2, 3))
        );
        assert_eq!(
            primitive_triangles("bowl", 7, 3, 0),
            t(shapes::bowl(1.0, 7, 3))
        );
        for (k, rings) in [(1, 1), (2, 5), (3, 4)] {
            assert_eq!(
                primitive_triangles("octopus", k, rings, 0),
                t(shapes::octopus(1.0, 3.0, k, rings))
            );
        }
        assert_eq!(grid_triangles(4, 3), t(shapes::grid(1.0, 1.0, 4, 3)));
        // Hostile counts saturate into a comparable number instead of overflowing.
        assert!(primitive_triangles("torus", usize::MAX, usize::MAX, 0) > u64::MAX as u128);
        assert!(primitive_triangles("octopus", usize::MAX, usize::MAX, 0) > u64::MAX as u128);
    }
}
