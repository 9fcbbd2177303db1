# ldanalyze as a container: the static binary on a distroless base (no shell,
# no package manager, runs as an unprivileged user).
#
#   docker build -t ldanalyze --build-arg VERSION=$(git describe --tags --always) .
#   docker run --rm -v "$PWD:/work" ldanalyze knee testdata/k6/breakpoint.csv.gz
#
# Files are read from and written to /work (the mounted directory); add
# --user "$(id -u)" when a command writes files there with -o.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=devel
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/ldanalyze ./cmd/ldanalyze

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/ldanalyze /usr/local/bin/ldanalyze
WORKDIR /work
ENTRYPOINT ["/usr/local/bin/ldanalyze"]
CMD ["help"]
