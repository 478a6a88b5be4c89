//! Run the first-time-of-impact kernel over one query category `REPS` times, for CPU-time
//! measurement with `perf stat -e task-clock` (robust to other load on a shared machine).
//! Usage: `kernel_loop DIR vf|ee REPS [nondegenerate]`; run with `REPS = 0` for the parsing
//! baseline and subtract.
use signorini_ccd::RootKind;
use signorini_ccd::benchmark::{QueryKind, kind_from_path, parse_queries};
use signorini_ccd::toi::{EdgeEdge, VertexFace, report};
use std::path::{Path, PathBuf};

fn csv_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("directory") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            csv_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "csv") {
            out.push(p);
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let kind = if args[2] == "vf" {
        QueryKind::VertexFace
    } else {
        QueryKind::EdgeEdge
    };
    let reps: usize = args[3].parse().expect("REPS");
    let mut files = Vec::new();
    csv_files(Path::new(&args[1]), &mut files);
    files.sort();
    let mut qs = Vec::new();
    for f in files.iter().filter(|f| kind_from_path(f) == Some(kind)) {
        qs.extend(
            parse_queries(&std::fs::read_to_string(f).expect("read"))
                .expect("parse")
                .queries,
        );
    }
    if args.get(4).is_some_and(|a| a == "nondegenerate") {
        qs.retain(|q| {
            let r = match kind {
                QueryKind::VertexFace => report(&VertexFace {
                    start: q.start,
                    end: q.end,
                }),
                QueryKind::EdgeEdge => report(&EdgeEdge {
                    start: q.start,
                    end: q.end,
                }),
            };
            r.roots.iter().all(|x| x.kind == RootKind::Isolated)
        });
    }
    let mut hits = 0usize;
    for _ in 0..reps {
        for q in &qs {
            hits += usize::from(std::hint::black_box(q).first_toi(kind).is_some());
        }
    }
    println!("{} queries x {reps} reps, {hits} hits", qs.len());
}
