//! Complementarity problems and their solvers. Sees no geometry and no bodies.
