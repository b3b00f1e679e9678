# Keygate for a company deployment: one static binary (the console is
# embedded from the committed console/dist) on a distroless base, running
# as a non-root user. Build: docker build -t keygate --build-arg VERSION=v0.1.0 .
# Configure with environment variables; see deploy/company.env.example.

FROM golang:1.26-bookworm AS build
ARG VERSION=dev
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# Pure Go (modernc SQLite, pgx): no cgo, so the binary runs on a static base.
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X keygate/app.version=${VERSION}" -o /out/keygate ./cmd/keygate \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/keygate /usr/local/bin/keygate
# The data directory holds the installation CA, the generated secret key of
# a laptop-style install and the SQLite file; with PostgreSQL and keys from
# the environment it only needs the CA (or mount a company CA instead).
COPY --from=build --chown=65532:65532 /out/data /data
ENV KEYGATE_DATA_DIR=/data \
    KEYGATE_LISTEN=0.0.0.0:8080 \
    KEYGATE_PROXY_LISTEN=0.0.0.0:8443 \
    KEYGATE_LOG_FORMAT=json
VOLUME ["/data"]
# 8080: console, control API, /metrics, Cursor routes. 8443: Cursor proxy.
EXPOSE 8080 8443
USER nonroot:nonroot
ENTRYPOINT ["/usr/local/bin/keygate"]
CMD ["serve"]
