#!/usr/bin/env bash
# Cross-compiles the release binaries of ldanalyze into dist/: static
# (CGO_ENABLED=0), trimmed paths, the version stamped into `--version`.
#
#   scripts/release.sh                            # linux, darwin, windows × amd64, arm64
#   VERSION=v1.2.3 scripts/release.sh linux/amd64  # one target
#
# VERSION defaults to `git describe --tags --always --dirty` (then "devel").
# Each target gives dist/ldanalyze_VERSION_OS_ARCH/ldanalyze[.exe] and an
# archive beside it (.tar.gz, .zip for windows); dist/SHA256SUMS lists the
# archives. .ci/run builds linux/amd64 with it and runs the binary.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
version=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo devel)}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64)
fi
mkdir -p dist
for t in "${targets[@]}"; do
  os=${t%/*} arch=${t#*/}
  if [ -z "$os" ] || [ -z "$arch" ] || [ "$os" = "$t" ]; then
    echo "release.sh: target $t: want OS/ARCH, e.g. linux/amd64" >&2
    exit 2
  fi
  name=ldanalyze_${version}_${os}_${arch}
  exe=ldanalyze
  [ "$os" = windows ] && exe=ldanalyze.exe
  rm -rf "dist/$name"
  mkdir -p "dist/$name"
  CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -ldflags "-s -w -X main.version=$version" \
    -o "dist/$name/$exe" ./cmd/ldanalyze
  cp README.md "dist/$name/"
  if [ "$os" = windows ]; then
    (cd dist && rm -f "$name.zip" && python3 -c 'import shutil,sys; shutil.make_archive(sys.argv[1], "zip", ".", sys.argv[1])' "$name")
  else
    tar -C dist -czf "dist/$name.tar.gz" "$name"
  fi
  echo "dist/$name/$exe"
done
(cd dist && sha256sum ldanalyze_*.tar.gz ldanalyze_*.zip 2>/dev/null > SHA256SUMS || true)
