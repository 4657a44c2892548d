# syntax=docker/dockerfile:1
# One image for linux/amd64 and linux/arm64:
#   docker buildx build --platform linux/amd64,linux/arm64 -t ogsmith .
# The build stage runs on the builder's own platform ($BUILDPLATFORM) and cross-compiles the
# binary for the image's ($TARGETARCH) with `bun run build --target`, which embeds that target's
# native modules. The runtime stage runs no command, so neither image needs an emulator on the
# builder. A plain `docker build .` builds for the machine it runs on.

# The runtime base: its /etc/passwd and /etc/group are read by the build stage, never run there.
FROM debian:bookworm-slim AS base

# Stage 1: compile the single executable (fonts, templates, migrations and UI assets embedded).
FROM --platform=$BUILDPLATFORM oven/bun:1.4.5-debian AS build
ARG TARGETARCH
# The CA certificates the runtime gets (for https image URLs and webhook endpoints): the bundle
# is the same file on every architecture, so it is installed here and copied.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/*
# The runtime's user (uid 10001) and its home with the data directory, made here as files: the
# base image's passwd and group with one line added, and the directory owned by that uid.
COPY --from=base /etc/passwd /etc/group /rootfs/etc/
RUN echo 'ogsmith:x:10001:10001::/var/lib/ogsmith:/usr/sbin/nologin' >>/rootfs/etc/passwd \
 && echo 'ogsmith:x:10001:' >>/rootfs/etc/group \
 && mkdir -p /rootfs/var/lib/ogsmith/data \
 && chown -R 10001:10001 /rootfs/var/lib/ogsmith
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
# The image's architecture → ogsmith's target (src/platform.ts). For another target than the
# builder's, the build fetches that target's native packages at bun.lock's versions, and Bun's
# runtime for it, from the npm registry.
RUN case "$TARGETARCH" in \
      amd64) target=linux-x64 ;; \
      arm64) target=linux-arm64 ;; \
      *) echo "no ogsmith binary for linux/$TARGETARCH (linux/amd64 and linux/arm64 are built)" >&2; exit 1 ;; \
    esac \
 && bun run build --target "$target"

# Stage 2: a slim runtime. The binary carries Bun itself; it needs only glibc and the CA
# certificates. The native modules are unpacked from the binary into /tmp at start, so /tmp
# must be writable.
FROM base AS runtime
COPY --from=build /rootfs/etc/passwd /rootfs/etc/group /etc/
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
# The data directory exists, owned by the runtime user, before VOLUME: Docker copies this
# ownership into a new named volume, so the non-root process can create its database there.
COPY --from=build --chown=10001:10001 /rootfs/var/lib/ogsmith /var/lib/ogsmith
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
