# syntax=docker/dockerfile:1
# Stage 1: compile the single executable (fonts, templates, migrations and UI assets embedded).
FROM oven/bun:1.4.5-debian AS build
WORKDIR /src
# Dependencies first, so source edits don't invalidate the install layer.
# patches/ too: `bun install` applies the patchedDependencies (satori's glyph-offset fix) from it.
COPY package.json bun.lock bunfig.toml ./
COPY patches ./patches
RUN bun install --frozen-lockfile
COPY tsconfig.json ./
COPY src ./src
COPY templates ./templates
COPY migrations ./migrations
COPY assets ./assets
COPY scripts ./scripts
# Embedded too: `ogsmith --licenses` prints the notices from inside the binary.
COPY THIRD_PARTY_NOTICES.md LICENSE ./
RUN bun run build

# Stage 2: a slim runtime. The binary carries Bun itself; it needs only glibc and CA certificates
# (for https image URLs and webhook endpoints). resvg's native addon is unpacked from the binary
# into /tmp at start, so /tmp must be writable.
FROM debian:bookworm-slim AS runtime
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /var/lib/ogsmith --create-home ogsmith \
 && mkdir -p /var/lib/ogsmith/data \
 && chown -R ogsmith:ogsmith /var/lib/ogsmith
# The data directory exists, owned by the runtime user, before VOLUME: Docker copies this
# ownership into a new named volume, so the non-root process can create its database there.
COPY --from=build /src/dist/ogsmith /usr/local/bin/ogsmith
COPY --from=build /src/LICENSE /src/THIRD_PARTY_NOTICES.md /usr/share/doc/ogsmith/
USER ogsmith
WORKDIR /var/lib/ogsmith
# The SQLite database (and its WAL files) live on the volume.
ENV OG_DB_PATH=/var/lib/ogsmith/data/ogsmith.db \
    PORT=3000 \
    HOST=0.0.0.0
VOLUME ["/var/lib/ogsmith/data"]
EXPOSE 3000
# The service finishes in-flight work on SIGTERM (docker stop sends it).
STOPSIGNAL SIGTERM
# bash (not dash) has /dev/tcp: a dependency-free "is it accepting connections" probe.
HEALTHCHECK --interval=30s --timeout=3s CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/${PORT}"]
ENTRYPOINT ["/usr/local/bin/ogsmith"]
CMD ["serve"]
