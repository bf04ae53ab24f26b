#!/usr/bin/env bash
# Starts the CLI under the lowest Node version package.json's `engines` allows (">=X.Y[.Z]"), taken
# from the npm registry's `node` package at that exact version: `--version`, then a dry run of a
# sample. A download that fails or hangs is a clear failure (a bound on the time, and a message),
# never a hang. Needs the bundle (npm ci builds it).
set -euo pipefail
cd "$(dirname "$0")/.."

range=$(node -p 'require("./package.json").engines.node')
lowest=$(node -e '
  const m = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(process.argv[1].trim());
  if (!m) { console.error(`engines.node is "${process.argv[1]}": expected ">=MAJOR.MINOR[.PATCH]"`); process.exit(1); }
  console.log([m[1], m[2] ?? 0, m[3] ?? 0].join("."));
' "${range}")
echo "== the CLI under Node ${lowest} (the lowest engines.node allows: ${range})"

dir=$(mktemp -d)
trap 'rm -rf "${dir}"' EXIT
if ! timeout 300 npm install --no-audit --no-fund --no-save --prefix "${dir}" "node@${lowest}" >"${dir}/install.log" 2>&1; then
  tail -20 "${dir}/install.log" >&2
  echo "could not install node@${lowest} from the npm registry within 5 minutes (above): the lowest Node engines allows was not tried" >&2
  exit 1
fi
low="${dir}/node_modules/node/bin/node"
version=$(timeout 30 "${low}" --version)
[ "${version}" = "v${lowest}" ] || { echo "node@${lowest} from npm says it is ${version}" >&2; exit 1; }

timeout 30 "${low}" bin/buildsync.mjs --version
# A dry run reads the file, maps it and checks every record: most of the CLI's modules load.
work="${dir}/work"
mkdir -p "${work}"
cp samples/estimates.csv samples/estimates.xlsx "${work}/"
(cd "${work}" && env -i PATH="${PATH}" HOME="${work}" timeout 60 "${low}" "${OLDPWD}/bin/buildsync.mjs" import estimates estimates.csv --dry-run)
(cd "${work}" && env -i PATH="${PATH}" HOME="${work}" timeout 60 "${low}" "${OLDPWD}/bin/buildsync.mjs" import estimates estimates.xlsx --sheet Estimates --dry-run)
echo "== Node ${version}: the CLI starts and dry-runs a CSV and an .xlsx sample"
