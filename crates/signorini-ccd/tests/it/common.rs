//! Shared helpers: locating and loading the benchmark data in `data/ccd`.

use signorini_ccd::benchmark::{
    QueryFile, QueryKind, kind_from_path, parse_queries, parse_truth_json,
};
use std::path::{Path, PathBuf};

/// Root of the CCD data set.
pub fn data_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/ccd")
}

/// A loaded query file with its kind and the truth list (from the file or `mma_bool`).
pub struct Loaded {
    pub path: PathBuf,
    pub kind: QueryKind,
    pub file: QueryFile,
    pub truth: Vec<bool>,
}

/// Load a query file and its ground truth.
pub fn load(path: &Path) -> Loaded {
    let kind = kind_from_path(path).expect("kind from path");
    let text = std::fs::read_to_string(path).unwrap();
    let file = parse_queries(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let truth: Vec<bool> = if file.queries[0].truth.is_some() {
        file.queries.iter().map(|q| q.truth.unwrap()).collect()
    } else {
        let stem = path.file_stem().unwrap().to_string_lossy();
        let json = path
            .parent()
            .unwrap()
            .join(format!("../mma_bool/{stem}_mma_bool.json"));
        parse_truth_json(&std::fs::read_to_string(&json).unwrap()).unwrap()
    };
    assert_eq!(truth.len(), file.queries.len(), "{}", path.display());
    Loaded {
        path: path.to_path_buf(),
        kind,
        file,
        truth,
    }
}

/// All `*.csv` files under `dir`, sorted.
pub fn csv_files(dir: &Path) -> Vec<PathBuf> {
    signorini_ccd::benchmark::csv_files(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
}
