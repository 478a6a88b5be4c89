//! Continuous collision detection for linearly moving triangle-mesh features.
