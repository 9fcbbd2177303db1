#!/usr/bin/env bash
# Executes every notebook in notebooks/ headless, as CI does; exits non-zero on the
# first notebook with a failing cell. Needs Go and Debian's python3-pandas,
# python3-matplotlib, python3-yaml, jupyter-nbconvert, python3-ipykernel and
# python3-nbclient (see README.md, "Notebooks"). The notebooks themselves are
# committed without outputs; the executed copies go to a temporary folder.
#   bash notebooks/run.sh                 # all notebooks
#   bash notebooks/run.sh knee.ipynb      # some of them
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
export PATH="/usr/local/go/bin:$PATH"
# The Python that runs Jupyter and the kernel: Debian's, which has the packages
# above, whatever python3 comes first on PATH (pyenv, a venv).
PY="${NOTEBOOK_PYTHON:-/usr/bin/python3}"
export PYDEVD_DISABLE_FILE_VALIDATION=1  # quiets debugpy's frozen-modules warning
"$PY" -c 'import pandas, matplotlib, yaml, nbconvert, nbclient, ipykernel' || {
  echo "notebooks/run.sh: $PY lacks the notebook packages: apt-get install -y python3-pandas python3-matplotlib python3-yaml jupyter-nbconvert python3-ipykernel python3-nbclient" >&2
  exit 2
}

if [ $# -gt 0 ]; then notebooks=("$@"); else notebooks=(*.ipynb); fi

# Committed without outputs: outputs belong to the executed copies, not to git.
"$PY" - "${notebooks[@]}" <<'EOF'
import json, sys
bad = [f"{nb}: cell {i} has outputs or an execution count"
       for nb in sys.argv[1:] for i, c in enumerate(json.load(open(nb))["cells"])
       if c["cell_type"] == "code" and (c.get("outputs") or c.get("execution_count") is not None)]
if bad:
    sys.exit("notebooks/run.sh: clear the outputs before committing (jupyter nbconvert --clear-output --inplace FILE):\n" + "\n".join(bad))
EOF

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
start=$SECONDS
# One binary for every notebook (they would each build it otherwise).
(cd .. && go build -o "$tmp/bin/ldanalyze" ./cmd/ldanalyze)
export LDANALYZE="$tmp/bin/ldanalyze"
# A kernelspec of our own, in the temporary folder, so that a user's python3
# kernelspec pointing at another Python is never picked.
"$PY" -m ipykernel install --prefix "$tmp/jupyter" --name ldanalyze-nb --display-name "ldanalyze notebooks" >"$tmp/err" 2>&1 ||
  { cat "$tmp/err" >&2; exit 1; }
export JUPYTER_PATH="$tmp/jupyter/share/jupyter${JUPYTER_PATH:+:$JUPYTER_PATH}"
out="${NOTEBOOK_OUT:-$tmp/out}"  # NOTEBOOK_OUT=DIR keeps the executed copies, with their plots

for nb in "${notebooks[@]}"; do
  t=$SECONDS
  if ! "$PY" -m nbconvert --to notebook --execute --ExecutePreprocessor.kernel_name=ldanalyze-nb \
      --ExecutePreprocessor.timeout=300 --output-dir "$out" "$nb" 2>"$tmp/err"; then
    cat "$tmp/err" >&2
    echo "notebooks/run.sh: FAILED $nb" >&2
    exit 1
  fi
  echo "ok   $nb ($((SECONDS - t)) s)"
done
echo "notebooks ran in $((SECONDS - start)) s"
echo "notebooks: ${#notebooks[@]} passed, 0 failed"
