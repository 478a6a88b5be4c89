#!/usr/bin/env bash
# Byte-identical check for refactorings (issue #21): run a fixed list of short scene runs and
# experiments with two builds of `signorini` and compare every output file.
#
#   scripts/byte-identical.sh BASE_BIN NEW_BIN [WORKDIR]
#
# BASE_BIN is a binary built from the commit before the change, NEW_BIN one built after it
# (e.g. `git worktree add ../base <commit> && cargo build --release` there; build both in the
# same folder, or summary.json's `file` field — the built-in scene's path — differs). Both run from the
# repository root, so the default data and scene paths resolve the same way.
#
# Compared: every file each run writes (trajectories, summary.csv/json, steps.csv, plots,
# tables). Not compared byte for byte: columns and lines that hold wall-clock times, which
# differ between any two runs. They are removed before `cmp`:
#   - CSV columns whose header names a time (ms_per_step, *_ms, ms_*, seconds, wall*, time_ms);
#   - JSON fields of the same names; in text tables, fixed-point numbers (the tables print
#     physics in e-notation, times and MiB in fixed point) and "… ms"/"… s" figures;
#   - the exit code of each run is compared too;
#   - SVG/HTML files whose content plots a timing (scaling.svg, timing*.svg, report.html) are
#     skipped and listed as such.
# Prints one line per file (`same`, `DIFFERS`, `only in base/new`, `skipped (timing)`) and a
# final count; exits 1 if any file differs or exists on one side only.
set -u
if [ $# -lt 2 ]; then
    sed -n '2,20p' "$0"
    exit 2
fi
BASE=$(realpath "$1")
NEW=$(realpath "$2")
WORK=${3:-$(mktemp -d)}
mkdir -p "$WORK"
cd "$(dirname "$0")/.." || exit 2

# The fixed list: name|arguments (a run's --out is appended). Short runs, ~2 minutes in all on a
# 2-core machine in release.
RUNS=(
    "demo|run demo --steps 150"
    "triangle_drop|run triangle_drop"
    "wedge|run wedge --steps 100"
    "pour2d_scene|run pour2d_a_h010 --steps 150"
    "pour2d_paper|run pour2d_a_h010 --steps 100 --paper"
    "pour3d_ico|run pour3d_icosahedra_h010 --steps 80"
    "pour3d_rand|run pour3d_random_c0_h010 --steps 80"
    "pile2d|run pile2d_n100 --steps 10"
    "box_cpf|run box_on_plane --steps 400"
    "box_dpf|run box_on_plane --model dpf --steps 400"
    "stick|run stick --steps 200"
    "p1d|run particle1d_perturbed --model dpf"
    "tori|run tori_drop --steps 150"
    "cloth_tori|run cloth_tori --steps 20"
    "rings|run rings --steps 20"
    "chain|run chain --steps 20"
    "bucket|run bucket --steps 20"
    "cube_cloth|run cube_on_cloth --steps 20"
    "x_pour2d|experiment pour2d --sets a --h 0.01 --duration 1"
    "x_tri|experiment triangle-drop"
    "x_pour3d|experiment pour3d --bodies icosahedra --configs 0 --h 0.01 --duration 0.5"
    "x_pour3d_r|experiment pour3d --bodies random --configs 1 --h 0.01 --duration 0.5"
    "x_p1d|experiment particle1d"
    "x_box|experiment box-on-plane --duration 0.5"
    "x_stick|experiment stick"
    "x_cloth|experiment cloth-tori --duration 0.05"
    "x_rings|experiment rings --duration 0.05"
    "x_chain|experiment chain --duration 0.05"
    "x_bucket|experiment bucket --duration 0.05"
    "x_pile|experiment pile --bodies 8 --duration 0.2 --trajectories"
    "x_pile2|experiment pile --dimension 2 --bodies 25 --duration 0.1"
    "x_tower|experiment tower --duration 0.1"
)

# Blank wall-clock figures: CSV columns named like times, and "… ms" / "… s" in text.
strip_times() {
    local f=$1
    case "$f" in
    *.csv)
        awk -F, -v OFS=, '
            NR == 1 || /^[a-z_]+,/ && !hdr { for (i = 1; i <= NF; i++) t[i] = ($i ~ /(^|_)ms($|_)|seconds|wall|mib/); hdr = 1 }
            { if (NR > 1) for (i = 1; i <= NF; i++) if (t[i]) $i = "T"; print }' "$f"
        ;;
    *.json)
        sed -E 's/"([a-z_]*(ms|seconds|wall|mib)[a-z_]*)": *[-0-9.eE+]+/"\1": T/g' "$f"
        ;;
    *)
        # Text tables print physics in e-notation and times (ms/step, MiB, slope) in fixed
        # point: blank fixed-point numbers and "… ms" / "… s" figures.
        sed -E -e 's/[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)? ?(ms|s|MiB)\b/T/g' \
            -e 's/(^|[ (=])[0-9]+\.[0-9]+([ ,)]|$)/\1T\2/g' "$f" |
            # pour3d's "PEG per run" table: column 6 is the slowest step's wall time (ms).
            awk '/slowest step \(ms\)/ { t = 1; print; next } t && /^  / { $6 = "T"; print; next } { t = 0; print }'
        ;;
    esac
}

same=0
differ=0
one_side=0
skipped=0
for entry in "${RUNS[@]}"; do
    name=${entry%%|*}
    args=${entry#*|}
    for side in base new; do
        bin=$BASE
        [ "$side" = new ] && bin=$NEW
        rm -rf "$WORK/$side/$name"
        # shellcheck disable=SC2086
        "$bin" $args --quiet --out "$WORK/$side/$name" >"$WORK/$side.$name.log" 2>&1
        echo $? >"$WORK/$side.$name.rc"
    done
    if ! cmp -s "$WORK/base.$name.rc" "$WORK/new.$name.rc"; then
        echo "DIFFERS       $name exit code: base $(cat "$WORK/base.$name.rc"), new $(cat "$WORK/new.$name.rc")"
        differ=$((differ + 1))
    fi
    for side in base new; do :
    done
    files=$( (cd "$WORK/base/$name" 2>/dev/null && find . -type f; cd "$WORK/new/$name" 2>/dev/null && find . -type f) | sort -u)
    for f in $files; do
        b="$WORK/base/$name/$f"
        n="$WORK/new/$name/$f"
        label="$name/${f#./}"
        if [ ! -f "$b" ]; then echo "only in new   $label"; one_side=$((one_side + 1)); continue; fi
        if [ ! -f "$n" ]; then echo "only in base  $label"; one_side=$((one_side + 1)); continue; fi
        case "$f" in
        *scaling.svg | *timing*.svg | *report.html)
            echo "skipped (timing) $label"
            skipped=$((skipped + 1))
            continue
            ;;
        esac
        if cmp -s "$b" "$n" || cmp -s <(strip_times "$b") <(strip_times "$n"); then
            same=$((same + 1))
        else
            echo "DIFFERS       $label"
            diff <(strip_times "$b") <(strip_times "$n") | head -4 | sed 's/^/    /'
            differ=$((differ + 1))
        fi
    done
done
echo "byte-identical check: ${#RUNS[@]} runs, $same files same, $differ differ, $one_side on one side only, $skipped skipped (timing plots)"
[ $differ -eq 0 ] && [ $one_side -eq 0 ]
