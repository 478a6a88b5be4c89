#!/usr/bin/env bash
# scripts/hostile.sh — the hostile-input table of issue #20, redone.
#
# Usage: scripts/hostile.sh [path-to-signorini]      (default: target/release/signorini)
#
# Generates hostile inputs (scene files, CLI arguments, LCP and CCD files) in a fresh
# temporary folder (mktemp -d, removed at exit), grouped in the categories of issue #20, runs
# `signorini validate` and/or `signorini run` (always `--out` inside the temporary folder, every
# command under `timeout 60`) and classifies each result:
#
#   clear     exit 2 with a message naming the file, the field or the option
#   vague     exit 2 whose message names none of them
#   ok        exit 0 for an input that is legitimately valid (or 130 / 143 when SIGINT / SIGTERM is
#             sent, with summary.json saying "interrupted": "SIG…")
#   checkfail exit 1 with a message (a check failed, e.g. a non-finite state)
#   panic     exit 101, or "panicked" in stderr
#   abort     exit 134 / 137, or killed by another signal
#   hang      timeout (exit 124)
#   wrong     any other exit code, or exit 0 for an input that must be refused
#   leftover  (extra column) any file whose name contains ".tmp" left in the case's folder
#
# Each case says what it expects: `refuse` (exit 2), `ok` (exit 0), `fail` (exit 1) or `any`
# (0, 1 and 2 are all acceptable: valid but extreme input). An exit that does not match the
# expectation is `wrong` (except panics, aborts and hangs, which are always counted as such).
#
# Output: one line per command (category, input, command, exit code, class, first line of
# stderr), then a markdown table per category. Exit status: 1 if any panic, abort, hang,
# wrong exit code or leftover temp file was seen, else 0.
#
# Load: every run is a few steps of a small scene, one command at a time.

set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SIG=${1:-$ROOT/target/release/signorini}
SIG=$(cd "$(dirname "$SIG")" && pwd)/$(basename "$SIG")
[ -x "$SIG" ] || { echo "no executable at $SIG" >&2; exit 2; }
T=$(mktemp -d "${TMPDIR:-/tmp}/signorini-hostile.XXXXXX")
trap 'rm -rf "$T"' EXIT
RES=$T/results.tsv
: >"$RES"
unset SIGNORINI_MEMORY_LIMIT

CAT=""
# cat_ NAME: start a category.
cat_() { CAT=$1; }

# put FILE TEXT: write TEXT (backslash escapes interpreted) to $D/FILE.
put() { printf '%b' "$2" >"$D/$1"; }

# newcase NAME: a fresh folder for one input; sets D.
newcase() { D=$T/cases/$CAT/$1; mkdir -p "$D"; }

# check NAME EXPECT CMD...: run CMD (with $SIG as the binary) in $D and classify it.
check() {
    local name=$1 expect=$2
    shift 2
    local code
    (cd "$D" && timeout 60 "$@" >"$D/.stdout" 2>"$D/.stderr" </dev/null)
    code=$?
    classify "$name" "$expect" "$code" "$*"
}

# classify NAME EXPECT CODE CMDTEXT (stderr in $D/.stderr)
classify() {
    local name=$1 expect=$2 code=$3 cmd=$4 class
    local err first
    err=$D/.stderr
    first=$(tr -d '\000' <"$err" | grep -a -m1 -v '^\s*$' | cut -c1-160)
    if [ "$code" = 124 ]; then
        class=hang
    elif [ "$code" = 101 ] || grep -aq 'panicked' "$err"; then
        class=panic
    elif [ "$code" = 134 ] || [ "$code" = 137 ] || { [ "$code" -gt 128 ] && [ "$code" != 130 ] && [ "$code" != 143 ] && [ "$code" != 141 ]; }; then
        class=abort
    else
        case "$expect:$code" in
        refuse:2 | any:2)
            # A located message: names the input file, a field, an option or the missing file.
            local base=${name%%/*}
            if grep -aqiE "field|--[a-z]|no such file|cannot (access|read)|\.toml|\.json|\.dat|\.csv|\.obj|line [0-9]|:[0-9]+:[0-9]+" "$err"; then
                class=clear
            else
                class=vague
            fi
            ;;
        ok:0 | any:0) class=ok ;;
        fail:1 | any:1)
            if [ -s "$err" ]; then class=checkfail; else class=wrong; fi
            ;;
        sigterm:143 | sigint:130)
            # Stopped by the signal: the run's files must be complete and marked.
            if grep -q '"interrupted": *"SIG' "$D/o/summary.json" 2>/dev/null; then class=ok; else class=wrong; fi
            ;;
        sweepterm:143 | sweepint:130) class=ok ;;
        ccdonce:0)
            # The one file (one query of 8 rows) counted once, not once per path through a loop.
            if grep -q '"queries": *1[,}]' "$D/.stdout"; then class=ok; else class=wrong; fi
            ;;
        pipe:0 | pipe:141)
            if [ -s "$err" ]; then class=wrong; else class=ok; fi
            ;;
        *) class=wrong ;;
        esac
    fi
    local left
    left=$(find "$D" -name '*.tmp*' 2>/dev/null | wc -l)
    local cmdshort=${cmd//$SIG/signorini}
    cmdshort=${cmdshort//$T\/cases\//}
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$CAT" "$name" "$cmdshort" "$code" "$class" "$left" "$first" >>"$RES"
    printf '%-10s %-28s %-60s exit %-3s %-9s%s  %s\n' "$CAT" "$name" "$cmdshort" "$code" "$class" \
        "$([ "$left" -gt 0 ] && echo " +${left} .tmp")" "$first"
}

# both NAME EXPECT_VALIDATE EXPECT_RUN TEXT [RUN-ARGS...]: write TEXT to NAME.toml and
# run `validate` and `run --out o --quiet` on it (in a fresh folder).
both() {
    local name=$1 ev=$2 er=$3 text=$4
    shift 4
    newcase "$name"
    local f=$name.toml
    case $name in *.json) f=$name ;; esac
    printf '%b' "$text" >"$D/$f"
    check "$name" "$ev" "$SIG" validate "$f"
    check "$name" "$er" "$SIG" run "$f" --out o --quiet "$@"
}

# ---------------------------------------------------------------------------------------------
# Scene builders.
STEP='[step]\nh = 0.01\nsteps = 5\n'
FLOOR2='[[body]]\nname = "floor"\nstatic = true\nshape = { type = "rectangle", min = [-1.0, -0.1], max = [1.0, 0.0] }\n'
# s2 TOP STEP BODYFIELDS CONTACT: a 2D box above a floor.
s2() {
    local top=${1:-} step=${2:-$STEP} body=${3:-'mass = 1.0\nposition = [0.0, 0.5]'} contact=${4:-}
    printf '%s\n%s\n%s\n%s[[body]]\nname = "box"\nshape = { type = "box", size = [0.2, 0.2] }\n%s\n' \
        "$top" "$step" "$contact" "$FLOOR2" "$body"
}
STEP3='dimension = 3\n[step]\nh = 0.01\nsteps = 5\n'
FLOOR3='[[body]]\nname = "floor"\nstatic = true\nshape = { type = "box", size = [4.0, 4.0, 1.0], center = [0.0, 0.0, -0.5] }\n'
# s3 BODYFIELDS TOP: a 3D polyhedral box above a floor.
s3() {
    local body=${1:-'mass = 1.0\nposition = [0.0, 0.0, 0.5]'} top=${2:-}
    printf '%s\n%s\n%s[[body]]\nname = "box"\nshape = { type = "box", size = [0.2, 0.2, 0.2] }\n%s\n' \
        "$top" "$STEP3" "$FLOOR3" "$body"
}
PEN='[contact]\nmodel = "cpf"\nstiffness = 1e4\n'
GROUND='[[body]]\nname = "ground"\nstatic = true\nshape = { type = "box", size = [4.0, 4.0, 1.0] }\nposition = [0.0, 0.0, -0.5]\n'
# spen SHAPE BODYFIELDS CONTACT: a penalty scene, one dynamic mesh body above the ground.
spen() {
    local shape=$1 body=${2:-'density = 1000.0\nposition = [0.0, 0.0, 0.5]'} contact=${3:-$PEN}
    printf '%s\n%s\n%s[[body]]\nname = "b"\nshape = %s\n%s\n' "$STEP3" "$contact" "$GROUND" "$shape" "$body"
}
# sdef DEFORMABLEFIELDS SHAPE MATERIAL EXTRA: a deformable cloth scene.
sdef() {
    local fields=${1:-} shape=${2:-'{ type = "grid", size = [1.0, 1.0], cells = [4, 4] }'}
    local mat=${3:-'{ areal_density = 0.2, stretch = 2000.0 }'} extra=${4:-}
    printf '%s\n%s\n%s\n[[deformable]]\nshape = %s\nmaterial = %s\n%s\n' "$STEP3" "$PEN" "$extra" "$shape" "$mat" "$fields"
}

# ---------------------------------------------------------------------------------------------
cat_ crashes # huge counts and sizes (issue: panics, aborts, 54 s validate, 28.8 GB)
both cube_sphere_seg1e9 refuse refuse "$(spen '{ type = "primitive", kind = "cube_sphere", radius = 0.1, segments = 1000000000 }')"
both torus_seg_u64max refuse refuse "$(spen '{ type = "primitive", kind = "torus", radius = 0.2, tube_radius = 0.05, segments = 18446744073709551615 }')"
both torus_seg_u64max_plus1 refuse refuse "$(spen '{ type = "primitive", kind = "torus", radius = 0.2, tube_radius = 0.05, segments = 18446744073709551616 }')"
both sphere_seg_rings_1e5 refuse refuse "$(spen '{ type = "primitive", kind = "sphere", radius = 0.1, segments = 100000, rings = 100000 }')"
both sphere_4000x4000 refuse refuse "$(spen '{ type = "primitive", kind = "sphere", radius = 0.1, segments = 4000, rings = 4000 }')"
both sphere_seg0 refuse refuse "$(spen '{ type = "primitive", kind = "sphere", radius = 0.1, segments = 0 }')"
both sphere_seg_negative refuse refuse "$(spen '{ type = "primitive", kind = "sphere", radius = 0.1, segments = -5 }')"
both sphere_seg_float refuse refuse "$(spen '{ type = "primitive", kind = "sphere", radius = 0.1, segments = 12.5 }')"
both bucket_stacks_1e9 refuse refuse "$(spen '{ type = "primitive", kind = "bucket", radius = 0.3, length = 0.3, stacks = 1000000000 }' '' "$PEN")"
both copies_1e18 refuse refuse "$(s2 '' '' 'mass = 1.0\nposition = [0.0, 0.5]\ncopies = 1000000000000000000\ninterval = 0.1')"
both copies_0 refuse refuse "$(s2 '' '' 'mass = 1.0\nposition = [0.0, 0.5]\ncopies = 0\ninterval = 0.1')"
both regular_polygon_sides_1e12 refuse refuse "$(s2 '' '' 'mass = 1.0\nposition = [0.0, 0.5]' | sed 's/type = "box", size = \[0.2, 0.2\]/type = "regular_polygon", sides = 1000000000000, radius = 0.1/')"
both regular_polygon_sides_2 refuse refuse "$(s2 '' '' 'mass = 1.0\nposition = [0.0, 0.5]' | sed 's/type = "box", size = \[0.2, 0.2\]/type = "regular_polygon", sides = 2, radius = 0.1/')"
both cloth_100000 refuse refuse "$(sdef '' '{ type = "grid", size = [1.0, 1.0], cells = [100000, 100000] }')"
both cloth_3000 refuse refuse "$(sdef '' '{ type = "grid", size = [1.0, 1.0], cells = [3000, 3000] }')"
both cloth_700_triangles refuse refuse "$(sdef '' '{ type = "grid", size = [1.0, 1.0], cells = [700, 700] }')"
both cloth_cells0 refuse refuse "$(sdef '' '{ type = "grid", size = [1.0, 1.0], cells = [0, 4] }')"
both substeps_1e9 refuse refuse "$(sdef '' '' '' '[deformables]\nsubsteps = 1000000000')"
both gap_corrections_1e9 refuse refuse "$(s2 '' '' '' '[contact]\ngap_corrections = 1000000000')"
both steps_1e9 refuse refuse "$(s2 '' '[step]\nh = 0.01\nsteps = 1000000000')"
both duration_1e300 refuse refuse "$(s2 '' '[step]\nh = 0.01\nduration = 1e300')"
both lattice_columns_huge refuse refuse "dimension = 3\n[step]\nh = 0.01\nsteps = 2\n$FLOOR3[[body_set]]\nfile = \"$ROOT/data/peg3d/random_polyhedra.json\"\ncircumradius = 0.1\nmass = 1.0\nlattice = { spacing = 0.3, columns = 1000000000000, first_site = 0 }\n"
both body_set_count_huge refuse refuse "[step]\nh = 0.01\nsteps = 2\n$FLOOR2[[body_set]]\nfile = \"$ROOT/data/peg2d/body_sets/set_a.json\"\ncount = 100000000000\n"
# 20,000 boxes in one step: within the body limit; the memory estimate decides (validate, then
# one step of the run; either a clear refusal or a completed step, and no .tmp left).
boxes=$(for i in $(seq 0 19999); do
    printf '[[body]]\nshape = { type = "box", size = [0.01, 0.01] }\nmass = 0.01\nposition = [%s, %s]\n' \
        "$(( (i % 200) * 2 )).0e-2" "$(( i / 200 * 2 + 1 )).0e-2"
done)
both boxes_20000 any any "[step]\nh = 0.01\nsteps = 1\n$FLOOR2\n$boxes\n"
newcase boxes_20000_limit_1M
put s.toml "[step]\nh = 0.01\nsteps = 1\n$FLOOR2\n$boxes\n"
check boxes_20000_limit_1M refuse "$SIG" validate s.toml --memory-limit 1M
check boxes_20000_limit_1M refuse "$SIG" run s.toml --out o --quiet --memory-limit 1M

# ---------------------------------------------------------------------------------------------
cat_ paths # scene names and output folders
for n in '../../escaped' '/tmp/signorini-hostile-x' '..' '.' '' 'a/b' 'a\\\\b' 'nul\\u0000x' 'line\\nbreak' "$(printf 'x%.0s' $(seq 101))"; do
    both "name_$(printf '%s' "$n" | tr -c 'A-Za-z0-9' '_' | cut -c1-20)" refuse refuse "name = \"$n\"\n$(s2)"
done
[ -e /tmp/signorini-hostile-x ] && echo "ESCAPED: /tmp/signorini-hostile-x exists" >&2
newcase reused_out
put s.toml "$(s2)"
check reused_out ok "$SIG" run s.toml --out o --quiet
check reused_out refuse "$SIG" run s.toml --out o --quiet
check reused_out ok "$SIG" run s.toml --out o --quiet --force
check reused_out ok "$SIG" run s.toml --quiet
check reused_out refuse "$SIG" run s.toml --quiet
newcase out_is_a_file
put s.toml "$(s2)"
echo x >"$D/o"
check out_is_a_file refuse "$SIG" run s.toml --out o --quiet
newcase out_nested_new
put s.toml "$(s2)"
check out_nested_new ok "$SIG" run s.toml --out a/b/c/o --quiet
newcase out_symlink_loop
put s.toml "$(s2)"
ln -s loop "$D/loop"
check out_symlink_loop refuse "$SIG" run s.toml --out loop --quiet

# ---------------------------------------------------------------------------------------------
cat_ numbers # NaN, inf, negative, zero and huge values in each numeric field
for v in nan inf -inf -1.0 0.0 1e300; do
    exp=refuse
    # h = 1e300 is refused (h <= 1); every other value here is invalid for h.
    both "h_$v" $exp $exp "$(s2 '' "[step]\nh = $v\nsteps = 5")"
done
for v in nan inf -1.0 0.0; do both "duration_$v" refuse refuse "$(s2 '' "[step]\nh = 0.01\nduration = $v")"; done
both steps_-1 refuse refuse "$(s2 '' '[step]\nh = 0.01\nsteps = -1')"
both steps_0 refuse refuse "$(s2 '' '[step]\nh = 0.01\nsteps = 0')"
both steps_string refuse refuse "$(s2 '' '[step]\nh = 0.01\nsteps = "five"')"
for v in nan inf -1.0 0.0; do
    both "mass_$v" refuse refuse "$(s2 '' '' "mass = $v\nposition = [0.0, 0.5]")"
    both "density_$v" refuse refuse "$(s2 '' '' "density = $v\nposition = [0.0, 0.5]")"
done
for v in nan inf; do
    both "position_$v" refuse refuse "$(s2 '' '' "mass = 1.0\nposition = [$v, 0.5]")"
    both "velocity_$v" refuse refuse "$(s2 '' '' "mass = 1.0\nposition = [0.0, 0.5]\nvelocity = [0.0, $v, 0.0]")"
    both "angle_$v" refuse refuse "$(s2 '' '' "mass = 1.0\nposition = [0.0, 0.5]\nangle = $v")"
    both "gravity_$v" refuse refuse "$(s2 "gravity = [0.0, $v]")"
    both "external_force_$v" refuse refuse "$(s2 '' '' "mass = 1.0\nposition = [0.0, 0.5]\nexternal_force = [$v, 0.0, 0.0]")"
    both "drop_time_$v" refuse refuse "$(s2 '' '' "mass = 1.0\nposition = [0.0, 0.5]\ndrop_time = $v")"
    both "friction_$v" refuse refuse "$(s2 '' '' '' "[contact]\nfriction = $v")"
    both "max_overlap_$v" refuse refuse "$(s2 '' '' '' "[checks]\nmax_overlap = $v")"
    both "stiffness_$v" refuse refuse "$(spen '{ type = "primitive", kind = "box", size = [0.1, 0.1, 0.1] }' '' "[contact]\nmodel = \"cpf\"\nstiffness = $v")"
    both "radius_$v" refuse refuse "$(spen "{ type = \"primitive\", kind = \"sphere\", radius = $v }")"
    both "stretch_$v" refuse refuse "$(sdef '' '' "{ areal_density = 0.2, stretch = $v }")"
    both "polygon_vertex_$v" refuse refuse "$(s2 '' '' 'mass = 1.0\nposition = [0.0, 0.5]' | sed "s/type = \"box\", size = \[0.2, 0.2\]/type = \"polygon\", vertices = [[0.0, 0.0], [0.1, 0.0], [$v, 0.1]]/")"
done
for f in friction peg_distance standard_distance; do
    both "${f}_-1" refuse refuse "$(s2 '' '' '' "[contact]\n$f = -1.0")"
done
both drop_time_-1 refuse refuse "$(s2 '' '' 'mass = 1.0\nposition = [0.0, 0.5]\ndrop_time = -1.0')"
both drop_time_1e300 any any "$(s2 '' '' 'mass = 1.0\nposition = [0.0, 0.5]\ndrop_time = 1e300')"
both interval_nan refuse refuse "$(s2 '' '' 'mass = 1.0\nposition = [0.0, 0.5]\ncopies = 3\ninterval = nan')"
both record_every_0 refuse refuse "$(s2 '' '' '' '[record]\nevery = 0')"
both record_every_huge any any "$(s2 '' '' '' '[record]\nevery = 18446744073709551615')"
both thickness_-1 refuse refuse "$(spen '{ type = "primitive", kind = "box", size = [0.1, 0.1, 0.1] }' '' '[contact]\nmodel = "cpf"\nstiffness = 1e4\nthickness = -1.0')"
both perturbation_amplitude_1 refuse refuse "$(spen '{ type = "primitive", kind = "box", size = [0.1, 0.1, 0.1] }' '' '[contact]\nmodel = "cpf"\nstiffness = 1e4\nstiffness_perturbation = { amplitude = 1.0, frequency = 30.0 }')"
both rotation_nan refuse refuse "$(s3 'mass = 1.0\nposition = [0.0, 0.0, 0.5]\nrotation = [nan, 0.0, 0.0]')"
both rotation_axis_zero refuse refuse "$(s3 'mass = 1.0\nposition = [0.0, 0.0, 0.5]\nrotation = { axis = [0.0, 0.0, 0.0], angle = 1.0 }')"
both inertia_3d_negative refuse refuse "$(s3 'mass = 1.0\ninertia = [-1.0, 1.0, 1.0]\nposition = [0.0, 0.0, 0.5]')"
both areal_density_-1 refuse refuse "$(sdef '' '' '{ areal_density = -1.0, stretch = 2000.0 }')"
both pressure_nan refuse refuse "$(sdef '' '' '{ areal_density = 0.2, stretch = 2000.0, pressure = nan }')"
# Finite but huge: legitimate input whose state overflows: exit 1 "non-finite state".
both gravity_1e300_2d ok fail "$(s2 'gravity = [0.0, -1e300]')"
both gravity_1e300_3d ok fail "$(s3 '' 'gravity = [0.0, 0.0, -1e300]')"
both gravity_1e300_penalty ok fail "gravity = [0.0, 0.0, -1e300]\n$(spen '{ type = "primitive", kind = "box", size = [0.1, 0.1, 0.1] }')"
both gravity_1e300_cloth ok fail "gravity = [0.0, 0.0, -1e300]\n$(sdef)"
both velocity_1e300 any any "$(s2 '' '' 'mass = 1.0\nposition = [0.0, 0.5]\nvelocity = [0.0, -1e300, 0.0]')"
both position_1e300 any any "$(s2 '' '' 'mass = 1.0\nposition = [1e300, 0.5]')"
both mass_1e-300 any any "$(s2 '' '' 'mass = 1e-300\nposition = [0.0, 0.5]')"

# ---------------------------------------------------------------------------------------------
cat_ fields # conflicting, missing, unknown and wrongly typed fields; CLI arguments
both rotation_axis_angle_euler refuse refuse "$(s3 'mass = 1.0\nposition = [0.0, 0.0, 0.5]\nrotation = { axis = [0.0, 0.0, 1.0], angle = 0.5, euler = [0.1, 0.2, 0.3] }')"
both duration_and_steps refuse refuse "$(s2 '' '[step]\nh = 0.01\nsteps = 5\nduration = 1.0')"
both no_step refuse refuse "$(s2 '' ' ')"
both no_bodies refuse refuse '[step]\nh = 0.01\nsteps = 5\n'
both no_shape refuse refuse "$STEP[[body]]\nmass = 1.0\n"
both unknown_key refuse refuse "$(s2 'colour_scheme = "dark"')"
both mass_string refuse refuse "$(s2 '' '' 'mass = "heavy"\nposition = [0.0, 0.5]')"
both position_short refuse refuse "$(s2 '' '' 'mass = 1.0\nposition = [0.0]')"
both dimension_4 refuse refuse "$(s2 'dimension = 4')"
both model_bogus refuse refuse "$(s2 '' '' '' '[contact]\nmodel = "bogus"')"
both static_with_mass refuse refuse "$STEP[[body]]\nstatic = true\nmass = 1.0\nshape = { type = \"box\", size = [1.0, 1.0] }\n"
both angle_in_3d refuse refuse "$(s3 'mass = 1.0\nposition = [0.0, 0.0, 0.5]\nangle = 0.3')"
both paper_and_gap_corrections refuse refuse "$(s2 '' '' '' '[contact]\npaper = true\ngap_corrections = 3')"
both penalty_with_solver refuse refuse "$(spen '{ type = "primitive", kind = "box", size = [0.1, 0.1, 0.1] }' '' '[contact]\nmodel = "cpf"\nstiffness = 1e4\nsolver = "lemke"')"
both material_missing refuse refuse "$(s2 '' '' 'material = "steel"\nposition = [0.0, 0.5]')"
newcase cli_args
put s.toml "$(s2)"
check cli_args refuse "$SIG" run s.toml --out o1 --quiet --steps 0
check cli_args refuse "$SIG" run s.toml --out o2 --quiet --steps -1
check cli_args refuse "$SIG" run s.toml --out o3 --quiet --dt 0
check cli_args refuse "$SIG" run s.toml --out o4 --quiet --dt nan
check cli_args refuse "$SIG" run s.toml --out o5 --quiet --dt -0.01
check cli_args refuse "$SIG" run s.toml --out o6 --quiet --dt inf
check cli_args refuse "$SIG" run s.toml --out o7 --quiet --model cpf
check cli_args refuse "$SIG" run s.toml --out o8 --quiet --memory-limit lots
# --dt replaces h; a `steps` count stays a count (legitimate), `duration / dt` is limited.
check cli_args ok "$SIG" run s.toml --out o9 --quiet --dt 1e-12
put d.toml "$(s2 '' '[step]\nh = 0.01\nduration = 1.0')"
check cli_args refuse "$SIG" run d.toml --out o11 --quiet --dt 1e-12
check cli_args ok "$SIG" run s.toml --out o10 --quiet --steps 18446744073709551615

# ---------------------------------------------------------------------------------------------
cat_ files # whole files: empty, garbage, wrong format, missing
both empty refuse refuse ''
both whitespace refuse refuse '   \n\n  \t\n'
newcase binary_garbage
head -c 4096 /dev/urandom >"$D/garbage.toml"
check binary_garbage refuse "$SIG" validate garbage.toml
check binary_garbage refuse "$SIG" run garbage.toml --out o --quiet
both truncated refuse refuse "$(s2 | head -c 120)"
both json_empty_object.json refuse refuse '{}'
both json_truncated.json refuse refuse '{"step": {"h": 0.01, "steps": 5}, "body": [{"shape": {"type": "box", "size": [0.2'
both json_wrong_type.json refuse refuse '{"step": {"h": "fast", "steps": 5}, "body": []}'
# A UTF-8 byte-order mark before valid TOML: accepting it is legitimate.
both utf8_bom any any "\xef\xbb\xbf$(s2)"
newcase missing_file
check missing_file refuse "$SIG" validate nonexistent.toml
check missing_file refuse "$SIG" run nonexistent.toml --out o --quiet
newcase directory
mkdir -p "$D/dir.toml"
check directory refuse "$SIG" validate dir.toml
check directory refuse "$SIG" run dir.toml --out o --quiet
newcase symlink_loop_scene
ln -s l.toml "$D/l.toml"
check symlink_loop_scene refuse "$SIG" validate l.toml
both mesh_missing refuse refuse "$(spen '{ type = "mesh", file = "missing.obj" }')"
newcase mesh_garbage
printf 'v 0 0 0\nv 1 0 0\nf 1 2 9\nf x y z\n' >"$D/m.obj"
put s.toml "$(spen '{ type = "mesh", file = "m.obj" }')"
check mesh_garbage refuse "$SIG" validate s.toml
check mesh_garbage refuse "$SIG" run s.toml --out o --quiet
newcase mesh_nan
printf 'v 0 0 0\nv 1 0 0\nv 0 nan 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 2 3 4\nf 1 4 3\n' >"$D/m.obj"
put s.toml "$(spen '{ type = "mesh", file = "m.obj" }')"
check mesh_nan refuse "$SIG" validate s.toml
check mesh_nan refuse "$SIG" run s.toml --out o --quiet
newcase body_set_garbage
head -c 2000 /dev/urandom >"$D/set.json"
printf '[step]\nh = 0.01\nsteps = 2\n[[body_set]]\nfile = "set.json"\n' >"$D/s.toml"
check body_set_garbage refuse "$SIG" validate s.toml
check body_set_garbage refuse "$SIG" run s.toml --out o --quiet

# ---------------------------------------------------------------------------------------------
cat_ geometry # shapes and initial states that are wrong, and their messages
poly() { s2 '' '' 'mass = 1.0\nposition = [0.0, 0.5]' | sed "s/type = \"box\", size = \[0.2, 0.2\]/type = \"polygon\", vertices = $1/"; }
both polygon_collinear refuse refuse "$(poly '[[0.0, 0.0], [0.1, 0.0], [0.2, 0.0]]')"
both polygon_bowtie refuse refuse "$(poly '[[0.0, 0.0], [0.1, 0.1], [0.1, 0.0], [0.0, 0.1]]')"
both polygon_clockwise refuse refuse "$(poly '[[0.0, 0.0], [0.0, 0.1], [0.1, 0.0]]')"
both polygon_two_points refuse refuse "$(poly '[[0.0, 0.0], [0.1, 0.0]]')"
both polygon_empty refuse refuse "$(poly '[]')"
both polygon_duplicate refuse refuse "$(poly '[[0.0, 0.0], [0.1, 0.0], [0.1, 0.0], [0.0, 0.1]]')"
both polygon_nonconvex refuse refuse "$(poly '[[0.0, 0.0], [0.2, 0.0], [0.1, 0.02], [0.2, 0.2], [0.0, 0.2]]')"
polyh() { s3 'mass = 1.0\nposition = [0.0, 0.0, 0.5]' | sed "s/type = \"box\", size = \[0.2, 0.2, 0.2\]/type = \"polyhedron\", vertices = $1/"; }
both polyhedron_duplicate refuse refuse "$(polyh '[[0.0, 0.0, 0.0], [0.1, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.1, 0.0], [0.0, 0.0, 0.1]]')"
both polyhedron_coplanar refuse refuse "$(polyh '[[0.0, 0.0, 0.0], [0.1, 0.0, 0.0], [0.0, 0.1, 0.0], [0.1, 0.1, 0.0]]')"
both polyhedron_interior_point refuse refuse "$(polyh '[[0.0, 0.0, 0.0], [0.1, 0.0, 0.0], [0.0, 0.1, 0.0], [0.0, 0.0, 0.1], [0.01, 0.01, 0.01]]')"
both hull3d_too_many_points refuse refuse "$(s3 'mass = 1.0\nposition = [0.0, 0.0, 0.5]' | sed "s/type = \"box\", size = \[0.2, 0.2, 0.2\]/type = \"convex_hull\", points = [$(for i in $(seq 100); do printf '[%s.0e-3, %s.0e-3, %s.0e-3], ' $((i*7%97)) $((i*13%89)) $((i*i%83)); done)[0.0, 0.0, 0.0]]/")"
both pin_negative refuse refuse "$(sdef 'pins = [-1]')"
both pin_out_of_range refuse refuse "$(sdef 'pins = [1000]')"
both pin_bogus_word refuse refuse "$(sdef 'pins = "edges"')"
both overlap_2d refuse refuse "$(s2 '' '' 'mass = 1.0\nposition = [0.0, 0.05]')"
both overlap_3d refuse refuse "$(s3 'mass = 1.0\nposition = [0.0, 0.0, 0.05]')"
both overlap_2d_allowed ok ok "$(s2 'allow_initial_overlap = true' '' 'mass = 1.0\nposition = [0.0, 0.05]')"
both overlap_penalty refuse refuse "$(spen '{ type = "primitive", kind = "box", size = [0.1, 0.1, 0.1] }' 'density = 1000.0\nposition = [0.0, 0.0, 0.0]')"
both overlap_penalty_allow ok ok "allow_initial_overlap = true\n$(spen '{ type = "primitive", kind = "box", size = [0.1, 0.1, 0.1] }' 'density = 1000.0\nposition = [0.0, 0.0, 0.0]')"
both torus_tube_too_big refuse refuse "$(spen '{ type = "primitive", kind = "torus", radius = 0.1, tube_radius = 0.2 }')"
both bucket_dynamic refuse refuse "$(spen '{ type = "primitive", kind = "bucket", radius = 0.3, length = 0.3 }')"
both valid_2d ok ok "$(s2)"

# ---------------------------------------------------------------------------------------------
cat_ lcp # Siconos problem files
lcp() { newcase "$1"; printf '%b' "$3" >"$D/p.dat"; check "$1" "$2" "$SIG" lcp solve p.dat; }
lcp lcp_trailing_data refuse '2\n0\n2\n2\n2 2\n1 0 0\n0 1 0\n0 0 1\n1 1 1\n'
lcp lcp_empty refuse ''
lcp lcp_garbage refuse "$(head -c 300 /dev/urandom | tr -d '\0')"
lcp lcp_header_huge refuse '1000000000000\n0\n1000000000000\n1\n1 1\n1\n1\n'
lcp lcp_negative_n refuse '-2\n0\n2\n2\n2 2\n1 0\n0 1\n1 1\n'
lcp lcp_nan refuse '2\n0\n2\n2\n2 2\nnan 0\n0 1\n-1 -1\n'
lcp lcp_short refuse '2\n0\n2\n2\n2 2\n1 0\n0 1\n'
newcase lcp_missing
check lcp_missing refuse "$SIG" lcp solve nonexistent.dat
lcp lcp_bad_scaling any '2\n0\n2\n2\n2 2\n1e150 0\n0 1e-150\n-1e150 -1e-150\n'

# ---------------------------------------------------------------------------------------------
cat_ ccd # query files for `ccd check`
newcase ccd_missing
check ccd_missing refuse "$SIG" ccd check /nonexistent-signorini.csv
newcase ccd_empty
: >"$D/q_vf.csv"
check ccd_empty any "$SIG" ccd check q_vf.csv
newcase ccd_garbage
head -c 2000 /dev/urandom >"$D/q_vf.csv"
check ccd_garbage refuse "$SIG" ccd check q_vf.csv
newcase ccd_nan
printf 'nan,1,0,1,0,1,1\n' >"$D/q_vf.csv"
check ccd_nan refuse "$SIG" ccd check q_vf.csv
newcase ccd_no_kind
printf '0,1,0,1,0,1,1\n%.0s' $(seq 8) >"$D/q.csv"
check ccd_no_kind refuse "$SIG" ccd check q.csv
newcase ccd_symlink_loop
mkdir -p "$D/d/sub"
printf '0,1,0,1,0,1,1\n%.0s' $(seq 8) >"$D/d/q_vf.csv"
ln -s .. "$D/d/sub/up"
check ccd_symlink_loop ccdonce "$SIG" ccd check d --format json
if grep -q . "$D/.stdout"; then
    # One file, 8 rows (if the count is there): report what it says.
    echo "           ccd_symlink_loop stdout: $(tr -d '\n' <"$D/.stdout" | cut -c1-200)"
fi
newcase ccd_broken_pipe
printf '0,1,0,1,0,1,1\n%.0s' $(seq 2000) >"$D/q_vf.csv"
(cd "$D" && timeout 60 bash -c 'set -o pipefail; "$0" ccd check q_vf.csv 2>.stderr | head -c 1 >/dev/null; echo "${PIPESTATUS[0]}" >.code' "$SIG")
classify ccd_broken_pipe pipe "$(cat "$D/.code" 2>/dev/null || echo 124)" "signorini ccd check q_vf.csv | head -c 1"

# ---------------------------------------------------------------------------------------------
cat_ signals # a long run or sweep stopped by one signal: complete, marked files, no .tmp
# signal_once NAME EXPECT SIGNAL CMD...: start CMD in $D (job control on, so that SIGINT is not
# ignored as in a background job), send SIGNAL once after 3 s, wait at most 60 s more (then
# SIGKILL and exit 124: a hang).
signal_once() {
    local name=$1 expect=$2 s=$3 code
    shift 3
    (
        cd "$D" || exit 2
        set -m
        "$@" >.stdout 2>.stderr </dev/null &
        pid=$!
        sleep 3
        kill -s "$s" "$pid" 2>/dev/null
        for _ in $(seq 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid"; wait "$pid"; exit 124; fi
        wait "$pid"
    ) 2>/dev/null
    code=$?
    classify "$name" "$expect" "$code" "kill -$s after 3 s: $*"
}
long=$(s2 '' '[step]\nh = 0.001\nduration = 10000.0')
for s in TERM INT; do
    newcase "run_sig$s"
    put s.toml "$long"
    exp=sigterm; [ $s = INT ] && exp=sigint
    signal_once "run_sig$s" $exp $s "$SIG" run s.toml --out o --quiet
done
# A sweep (pour2d, set a, PEG, 16 runs): exit 130 / 143 and no .tmp (summary not checked).
for s in TERM INT; do
    newcase "pour2d_sig$s"
    exp=sweepterm; [ $s = INT ] && exp=sweepint
    signal_once "pour2d_sig$s" $exp $s "$SIG" experiment pour2d --sets a --models peg --quiet --data "$ROOT/data/peg2d" --out o
done

# ---------------------------------------------------------------------------------------------
# Summary.
echo
echo "signorini: $SIG ($("$SIG" --version 2>/dev/null)); $(date -u '+%Y-%m-%d %H:%M UTC')"
awk -F'\t' '
{ cat=$1; if (!(cat in seen)) { seen[cat]=1; order[++n]=cat }
  key=cat SUBSEP $2; if (!(key in inp)) { inp[key]=1; inputs[cat]++; tin++ }
  cmds[cat]++; tc++; c[cat, $5]++; t[$5]++; if ($6 > 0) { left[cat]+=$6; tl+=$6 } }
END {
  printf "\n| category | inputs | commands | clear exit 2 | vague exit 2 | ok | check failure (exit 1) | panics | aborts | hangs | wrong exit | leftover .tmp files |\n"
  printf "|---|---|---|---|---|---|---|---|---|---|---|---|\n"
  for (i=1; i<=n; i++) { k=order[i]
    printf "| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d |\n", k, inputs[k], cmds[k],
      c[k,"clear"], c[k,"vague"], c[k,"ok"], c[k,"checkfail"], c[k,"panic"], c[k,"abort"], c[k,"hang"], c[k,"wrong"], left[k] }
  printf "| **total** | **%d** | **%d** | **%d** | **%d** | **%d** | **%d** | **%d** | **%d** | **%d** | **%d** | **%d** |\n",
    tin, tc, t["clear"], t["vague"], t["ok"], t["checkfail"], t["panic"], t["abort"], t["hang"], t["wrong"], tl
}' "$RES"
echo
bad=$(awk -F'\t' '$5=="panic"||$5=="abort"||$5=="hang"||$5=="wrong"||$5=="vague"||$6>0' "$RES")
if [ -n "$bad" ]; then
    echo "Not clean (panic, abort, hang, wrong exit, vague message or leftover .tmp):"
    printf '%s\n' "$bad" | awk -F'\t' '{ printf "- %s / %s: `%s` exit %s, %s, %s .tmp: %s\n", $1, $2, $3, $4, $5, $6, $7 }'
fi
awk -F'\t' '$5=="panic"||$5=="abort"||$5=="hang"||$5=="wrong"||$6>0 { bad=1 } END { exit bad }' "$RES"
