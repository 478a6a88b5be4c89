//! Checkpoints (`GenericWorld::checkpoint` / `restore`): a run stopped after 30 steps,
//! written to JSON, read back into a world built afresh and stepped 30 more times ends where
//! the uninterrupted 60-step run ends, bit for bit, with basis reuse off and on (the stored
//! bases travel in the checkpoint; these columns happen to resume bit for bit even without
//! them: the 8-body pile test in `signorini-experiments` is the one whose rows differ then); a
//! file without them (written before session 37) still resumes, to the solver's tolerance. A checkpoint that does not fit the world is refused
//! with the reason.

use signorini_world::{Checkpoint, ContactKey3, ContactModel, PolyBody, World3, WorldParams};

/// A static floor and two tilted columns of three cubes (two islands) that land and settle.
fn bodies() -> Vec<PolyBody> {
    crate::tilted_columns(&[0.0, 0.6])
}

fn world(reuse_basis: bool) -> World3 {
    let mut p = WorldParams::signorini(ContactModel::Peg, 0.01);
    p.mu = 0.5;
    p.warm_start = true;
    p.reuse_basis = reuse_basis;
    let mut w = World3::new(p).unwrap();
    for b in bodies() {
        w.add_body(b).unwrap();
    }
    w
}

fn steps(w: &mut World3, n: usize) {
    for _ in 0..n {
        let r = w.step();
        assert!(!r.failed, "{:?}", r.failure);
    }
}

/// 30 steps, a JSON round trip into a new world (without the solvers' memory if
/// `forget`), 30 more steps: the final checkpoint.
fn resumed(reuse_basis: bool, forget: bool) -> Checkpoint<ContactKey3> {
    let mut first = world(reuse_basis);
    steps(&mut first, 30);
    let saved = first.checkpoint();
    assert!(
        !saved.warm.is_empty(),
        "no warm starts at step 30: a weak test"
    );
    assert_eq!(
        saved.bases.is_empty(),
        !reuse_basis,
        "basis reuse {reuse_basis}: stored bases in the checkpoint?"
    );
    let mut json = serde_json::to_value(&saved).unwrap();
    if forget {
        json.as_object_mut().unwrap().remove("bases");
    }
    let back: Checkpoint<ContactKey3> = serde_json::from_value(json).unwrap();
    assert_eq!(
        back == saved,
        !forget || !reuse_basis,
        "the JSON round trip changed the checkpoint"
    );
    let mut second = world(reuse_basis);
    second.restore(&back).unwrap();
    assert_eq!(second.steps, 30);
    steps(&mut second, 30);
    second.checkpoint()
}

#[test]
fn a_resumed_run_is_bit_identical_to_the_uninterrupted_one() {
    for reuse_basis in [false, true] {
        let mut whole = world(reuse_basis);
        steps(&mut whole, 60);
        assert_eq!(
            resumed(reuse_basis, false),
            whole.checkpoint(),
            "basis reuse {reuse_basis}"
        );
    }
}

#[test]
fn a_file_without_the_solvers_memory_resumes_to_the_solver_tolerance() {
    let mut whole = world(true);
    steps(&mut whole, 60);
    let (a, b) = (resumed(true, true), whole.checkpoint());
    for (x, y) in a.bodies.iter().zip(&b.bodies) {
        for (u, v) in x.state.iter().zip(&y.state) {
            assert!((u - v).abs() < 1e-9, "{u} vs {v}");
        }
    }
}

#[test]
fn a_checkpoint_that_does_not_fit_is_refused_with_the_reason() {
    let mut w = world(false);
    steps(&mut w, 5);
    let saved = w.checkpoint();
    let mut fewer = World3::new(w.params.clone()).unwrap();
    for b in bodies().into_iter().take(5) {
        fewer.add_body(b).unwrap();
    }
    let err = fewer.restore(&saved).unwrap_err().to_string();
    assert!(err.contains("holds 7 bodies, this world 5"), "{err}");

    let mut bad = saved.clone();
    bad.bodies[2].state[3] = 2.0; // qw: the quaternion is no longer of norm 1
    let mut other = world(false);
    let err = other.restore(&bad).unwrap_err().to_string();
    assert!(err.contains("body 2") && err.contains("norm 1"), "{err}");
    assert_eq!(other.steps, 0, "a refused checkpoint changed the world");

    // A stored basis that names a body the world does not have (an edited file).
    let mut reusing = world(true);
    steps(&mut reusing, 30);
    let mut json = serde_json::to_value(reusing.checkpoint()).unwrap();
    let text = json["bases"].to_string();
    assert!(
        text.contains("\"Normal\""),
        "no stored basis at step 30: {text:.200}"
    );
    let mut local = json.clone();
    let islands = json["bases"]["islands"].as_array_mut().unwrap();
    let members = islands[0][0].as_array_mut().unwrap();
    *members.last_mut().unwrap() = 99.into();
    let edited: Checkpoint<ContactKey3> = serde_json::from_value(json).unwrap();
    let err = world(true).restore(&edited).unwrap_err().to_string();
    assert!(
        err.contains("solver memory") && err.contains("no body 99"),
        "{err}"
    );
    // An island's basis names its bodies by local index, below its member count.
    local["bases"]["islands"][0][1]["signature"]["keys"][0][0] = 5.into();
    let edited: Checkpoint<ContactKey3> = serde_json::from_value(local).unwrap();
    let err = world(true).restore(&edited).unwrap_err().to_string();
    assert!(err.contains("its basis names local body 5"), "{err}");

    let mut p = w.params.clone();
    p.h = 0.005;
    let mut finer = World3::new(p).unwrap();
    for b in bodies() {
        finer.add_body(b).unwrap();
    }
    let err = finer.restore(&saved).unwrap_err().to_string();
    assert!(err.contains("h = 0.01"), "{err}");
}
