# TV Table: one image for every process kind of a show on several machines
# (tvtable serve --services core | overlay | cardcam, and tvtable acl).
# docker-compose.yml runs it; docs/DEPLOY.md says how.
FROM python:3.11-slim-bookworm

# No redis-server here: a show on several machines uses the compose file's Redis.
# tini reaps the camera worker's vision processes and forwards SIGTERM (docker stop),
# on which tvtable stops cleanly.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /opt/tvtable
COPY pyproject.toml README.md ./
COPY broadcast ./broadcast
COPY overlays ./overlays
COPY cardcam ./cardcam
COPY config ./config
RUN pip install --no-cache-dir . && python -c "import broadcast.cli, overlays.pages, cardcam.cli"

# Never root: the data dir holds the journal's signing key and tokens.toml.
RUN useradd --system --home-dir /var/lib/tvtable --create-home tvtable
USER tvtable
VOLUME ["/var/lib/tvtable"]
EXPOSE 8080
ENTRYPOINT ["tini", "--"]
CMD ["tvtable", "--help"]
