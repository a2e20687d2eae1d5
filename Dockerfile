FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY games ./games
COPY protocol ./protocol
COPY server ./server
COPY client ./client
COPY agents ./agents
RUN pip install --no-cache-dir .
VOLUME /data
EXPOSE 7777
CMD ["arbiter-server", "--host", "0.0.0.0", "--port", "7777", "--db", "/data/arbiter.db"]
