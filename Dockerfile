# Arbiter's server and client in one image, installed the normal way: `pip install '.[postgres]'`.
# The server keeps its records where ARBITER_DB says (docker-compose.yml: PostgreSQL), else in
# /data/arbiter.db, a volume. It runs as the user `arbiter`, not root. docs/deploy.md.
# bubblewrap is the sandbox untrusted agents run in (docs/hosted-agents.md).
FROM python:3.11-slim
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap \
    && rm -rf /var/lib/apt/lists/*
RUN useradd --create-home --uid 1000 arbiter \
    && mkdir /data && chown arbiter:arbiter /data
WORKDIR /src
COPY pyproject.toml README.md ./
COPY games ./games
COPY protocol ./protocol
COPY server ./server
COPY client ./client
COPY agents ./agents
COPY bridges ./bridges
RUN pip install --no-cache-dir '.[postgres]'
USER arbiter
WORKDIR /data
VOLUME /data
EXPOSE 7777
CMD ["arbiter-server", "--host", "0.0.0.0", "--port", "7777"]
