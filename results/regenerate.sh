#!/usr/bin/env bash
# Regenerates the committed reference results in results/ from the example scenarios: CSV,
# JSON, Markdown and SVG for every scenario that needs no outside data, the optimizer's
# regret tables, and a PNG of one plot for the README (with rsvg-convert, from Debian's
# librsvg2-bin, when it is installed).
#
#   bash results/regenerate.sh
#
# Same scenario and seed give the same bytes: `cargo test --release` checks these files are
# current (tests/suite/results.rs).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked --quiet
bin=target/release/ckptsim
for name in $(cat results/scenarios.txt); do
  "$bin" run "scenarios/$name.toml" --out results --plot --format markdown > "results/$name.md"
done
while read -r name sets; do
  [ -n "$name" ] || continue
  # shellcheck disable=SC2086
  "$bin" optimize "scenarios/$name.toml" $sets --out results/optimize > /dev/null
done < results/optimize.txt
# Machine efficiency: the shipped small schedule always, the Frontier year where the shared data
# folder is beside the checkout.
"$bin" efficiency scenarios/small-schedule.toml --out results --plot --format markdown > results/small-schedule.md
if [ -f ../shared/data/frontier/jobs2024.csv ]; then
  "$bin" efficiency scenarios/frontier-2024.toml --out results --plot --format markdown > results/frontier-2024.md
fi
# The LANL log's per-system statistics, where the shared data folder is beside the checkout.
lanl=../shared/data/lanl/LA-UR-05-7318-failure-data-1996-2005.csv.xz
if [ -f "$lanl" ]; then
  "$bin" trace stats "$lanl" --out results > /dev/null
fi
if command -v rsvg-convert >/dev/null; then
  rsvg-convert -w 800 results/young-daly-overhead.svg -o results/young-daly-overhead.png
  rsvg-convert -w 800 results/rack-events-causes.svg -o results/rack-events-causes.png
  rsvg-convert -w 800 results/optimize/weibull-k05-optimize.svg -o results/weibull-k05-optimize.png
  rsvg-convert -w 800 results/optimize/daly-2006-optimize.svg -o results/daly-2006-optimize.png
  if [ -f results/frontier-2024-efficiency.svg ]; then
    rsvg-convert -w 800 results/frontier-2024-efficiency.svg -o results/frontier-2024-efficiency.png
  fi
fi
echo "results/ regenerated"
