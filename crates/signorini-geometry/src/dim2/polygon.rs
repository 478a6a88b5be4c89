//! Validated convex polygons (counter-clockwise, strictly convex, finite).
//!
//! Owns: [`ConvexPolygon`] (vertices in the shape's own frame), its validation errors, area,
//! centroid, area moment of inertia, and placement into the world frame.
//! Does not own: intersection (see `clip`), distances (see `distance`).

use signorini_math::{Real, Vec2, cross2, rotate2};

/// Why a vertex list is not a valid convex polygon.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PolygonError {
    /// Fewer than three vertices.
    #[error("polygon has {count} vertices; at least 3 are required")]
    TooFewVertices {
        /// Number of vertices given.
        count: usize,
    },
    /// A coordinate is NaN or infinite.
    #[error("vertex {index} has a non-finite coordinate ({x}, {y})")]
    NonFinite {
        /// Vertex index.
        index: usize,
        /// x coordinate.
        x: Real,
        /// y coordinate.
        y: Real,
    },
    /// Two consecutive vertices coincide (zero-length edge).
    #[error("edge {index} has zero length (vertices {index} and the next coincide)")]
    DegenerateEdge {
        /// Edge index.
        index: usize,
    },
    /// All vertices lie on one line: the polygon has no area.
    #[error("degenerate: collinear or zero-area (all vertices lie on one line)")]
    Degenerate,
    /// The coordinates are so large (or small) that the area, centroid or second moment is
    /// not a finite positive number in f64.
    #[error(
        "out of range: at this scale (largest |coordinate| {scale:e}) the polygon's {quantity} is not finite in f64"
    )]
    OutOfRange {
        /// Largest absolute coordinate.
        scale: Real,
        /// `area`, `centroid` or `second moment`.
        quantity: &'static str,
    },
    /// Two edges that do not share a vertex cross or touch (a bow-tie).
    #[error("self-intersecting: edges {first} and {second} cross")]
    CrossingEdges {
        /// The first edge (from vertex `first` to the next).
        first: usize,
        /// The second edge.
        second: usize,
    },
    /// The vertices are ordered clockwise (negative signed area).
    #[error("vertices are clockwise (signed area {area:e}); counter-clockwise order is required")]
    Clockwise {
        /// Signed area.
        area: Real,
    },
    /// The polygon turns right (or goes straight) at a vertex.
    #[error("polygon is not strictly convex at vertex {index} (turn {turn:e})")]
    NotConvex {
        /// Vertex index where the turn is not strictly left.
        index: usize,
        /// Normalised cross product of the adjacent edges (sine of the turn).
        turn: Real,
    },
    /// The boundary winds around more than once (self-intersecting star shape).
    #[error(
        "self-intersecting: the polygon boundary winds {turns:.3} times around its interior; \
         exactly once is required"
    )]
    SelfIntersecting {
        /// Total turning divided by 2π.
        turns: Real,
    },
}

/// Whether every vertex lies on the line through the first vertex and the one farthest from
/// it (within 1e-12 of that distance, relative).
fn collinear(v: &[Vec2]) -> bool {
    let far = v
        .iter()
        .map(|p| p - v[0])
        .max_by(|a, b| a.norm_squared().total_cmp(&b.norm_squared()))
        .unwrap_or_else(Vec2::zeros);
    let len = far.norm();
    len == 0.0
        || v.iter()
            .all(|p| cross2(&far, &(p - v[0])).abs() <= 1e-12 * len * len)
}

/// The first pair of edges `(i, j)`, `i < j`, not adjacent, that cross or touch (edge k runs
/// from vertex k to the next). O(n²): only called on polygons that already failed a check.
fn crossing_edges(v: &[Vec2]) -> Option<(usize, usize)> {
    let n = v.len();
    let orient = |a: &Vec2, b: &Vec2, c: &Vec2| cross2(&(b - a), &(c - a));
    let on = |a: &Vec2, b: &Vec2, p: &Vec2| {
        p.x >= a.x.min(b.x) && p.x <= a.x.max(b.x) && p.y >= a.y.min(b.y) && p.y <= a.y.max(b.y)
    };
    let meet = |p1: &Vec2, p2: &Vec2, p3: &Vec2, p4: &Vec2| {
        let (d1, d2) = (orient(p3, p4, p1), orient(p3, p4, p2));
        let (d3, d4) = (orient(p1, p2, p3), orient(p1, p2, p4));
        if ((d1 > 0.0 && d2 < 0.0) || (d1 < 0.0 && d2 > 0.0))
            && ((d3 > 0.0 && d4 < 0.0) || (d3 < 0.0 && d4 > 0.0))
        {
            return true;
        }
        (d1 == 0.0 && on(p3, p4, p1))
            || (d2 == 0.0 && on(p3, p4, p2))
            || (d3 == 0.0 && on(p1, p2, p3))
            || (d4 == 0.0 && on(p1, p2, p4))
    };
    for i in 0..n {
        for j in i + 2..n {
            if i == 0 && j == n - 1 {
                continue; // adjacent through vertex 0
            }
            if meet(&v[i], &v[(i + 1) % n], &v[j], &v[(j + 1) % n]) {
                return Some((i, j));
            }
        }
    }
    None
}

/// Signed area of a closed vertex loop (positive when counter-clockwise).
pub fn polygon_area_signed(v: &[Vec2]) -> Real {
    let n = v.len();
    (0..n).map(|i| cross2(&v[i], &v[(i + 1) % n])).sum::<Real>() * 0.5
}

/// A strictly convex, counter-clockwise polygon with at least three finite vertices.
#[derive(Debug, Clone, PartialEq)]
pub struct ConvexPolygon {
    vertices: Vec<Vec2>,
}

/// Minimum sine of the turning angle at a vertex for the polygon to count as strictly convex.
/// Dimensionless; 1e-12 only rejects exactly collinear (or reflex) vertices.
const MIN_TURN_SINE: Real = 1e-12;

impl ConvexPolygon {
    /// Validate and build a polygon from counter-clockwise vertices: at least three finite
    /// vertices, no zero-length edge, strictly convex, counter-clockwise, simple, and with an
    /// area, centroid and second moment finite in f64 ([`PolygonError::OutOfRange`]).
    pub fn new(vertices: Vec<Vec2>) -> Result<Self, PolygonError> {
        let n = vertices.len();
        if n < 3 {
            return Err(PolygonError::TooFewVertices { count: n });
        }
        if let Some((index, v)) = vertices
            .iter()
            .enumerate()
            .find(|(_, v)| !(v.x.is_finite() && v.y.is_finite()))
        {
            return Err(PolygonError::NonFinite {
                index,
                x: v.x,
                y: v.y,
            });
        }
        for i in 0..n {
            if (vertices[(i + 1) % n] - vertices[i]).norm() == 0.0 {
                return Err(PolygonError::DegenerateEdge { index: i });
            }
        }
        if collinear(&vertices) {
            return Err(PolygonError::Degenerate);
        }
        // A bow-tie is reported as such, not by the first check it fails.
        let crossing = |e: PolygonError| match crossing_edges(&vertices) {
            Some((first, second)) => PolygonError::CrossingEdges { first, second },
            None => e,
        };
        let area = polygon_area_signed(&vertices);
        let scale = vertices
            .iter()
            .map(|v| v.x.abs().max(v.y.abs()))
            .fold(0.0, Real::max);
        let out_of_range = |quantity| PolygonError::OutOfRange { scale, quantity };
        if !area.is_finite() {
            return Err(out_of_range("area"));
        }
        if area == 0.0 {
            // Underflow of a tiny polygon, or a zero-area loop the collinearity test missed.
            return Err(crossing(PolygonError::Degenerate));
        }
        if area < 0.0 {
            return Err(crossing(PolygonError::Clockwise { area }));
        }
        let mut total_turn = 0.0;
        for i in 0..n {
            let e0 = vertices[i] - vertices[(i + n - 1) % n];
            let e1 = vertices[(i + 1) % n] - vertices[i];
            let turn = cross2(&e0, &e1) / (e0.norm() * e1.norm());
            if turn <= MIN_TURN_SINE {
                return Err(crossing(PolygonError::NotConvex { index: i, turn }));
            }
            total_turn += cross2(&e0, &e1).atan2(e0.dot(&e1));
        }
        let turns = total_turn / std::f64::consts::TAU;
        if (turns - 1.0).abs() > 1e-6 {
            return Err(PolygonError::SelfIntersecting { turns });
        }
        let polygon = ConvexPolygon { vertices };
        // What a body needs from its shape must be finite (found by the fuzz campaign:
        // coordinates near 1e150 gave an infinite centroid sum, near 1e308 a NaN area).
        let c = polygon.centroid();
        if !(c.x.is_finite() && c.y.is_finite()) {
            return Err(out_of_range("centroid"));
        }
        if !polygon.polar_moment_about_origin().is_finite() {
            return Err(out_of_range("second moment"));
        }
        Ok(polygon)
    }

    /// Axis-aligned rectangle `[x0, x1] × [y0, y1]` (counter-clockwise from the lower left).
    pub fn rectangle(x0: Real, y0: Real, x1: Real, y1: Real) -> Result<Self, PolygonError> {
        ConvexPolygon::new(vec![
            Vec2::new(x0, y0),
            Vec2::new(x1, y0),
            Vec2::new(x1, y1),
            Vec2::new(x0, y1),
        ])
    }

    /// The vertices (counter-clockwise).
    pub fn vertices(&self) -> &[Vec2] {
        &self.vertices
    }

    /// Number of vertices (= number of edges).
    pub fn len(&self) -> usize {
        self.vertices.len()
    }

    /// Always false (a valid polygon has at least three vertices); present for API symmetry.
    pub fn is_empty(&self) -> bool {
        self.vertices.is_empty()
    }

    /// Area (positive).
    pub fn area(&self) -> Real {
        polygon_area_signed(&self.vertices)
    }

    /// Area centroid.
    pub fn centroid(&self) -> Vec2 {
        polygon_centroid(&self.vertices)
    }

    /// Second moment of area about the frame origin, ∫(x² + y²) dA (multiply by areal density
    /// for the polar moment of inertia about the origin).
    pub fn polar_moment_about_origin(&self) -> Real {
        let v = &self.vertices;
        let n = v.len();
        let mut j = 0.0;
        for i in 0..n {
            let (a, b) = (v[i], v[(i + 1) % n]);
            let c = cross2(&a, &b);
            j += c * (a.dot(&a) + a.dot(&b) + b.dot(&b));
        }
        j / 12.0
    }

    /// Vertices placed in the world: `x + R(θ) v`.
    pub fn placed(&self, position: &Vec2, angle: Real) -> Vec<Vec2> {
        self.vertices
            .iter()
            .map(|v| position + rotate2(v, angle))
            .collect()
    }
}

/// Area centroid of a counter-clockwise vertex loop (the vertex mean if the area vanishes).
pub(crate) fn polygon_centroid(v: &[Vec2]) -> Vec2 {
    let n = v.len();
    let a = polygon_area_signed(v);
    if a.abs() < Real::MIN_POSITIVE || n == 0 {
        let s: Vec2 = v.iter().sum();
        return s / (n.max(1) as Real);
    }
    let mut c = Vec2::zeros();
    for i in 0..n {
        let (p, q) = (v[i], v[(i + 1) % n]);
        c += (p + q) * cross2(&p, &q);
    }
    c / (6.0 * a)
}
