//! Integration tests of the penalty impulses: closed forms against quadrature of Eq. 8, the
//! `L_k` error (Fig. 6), intervals, detection and tracking.

mod impulses;
