# The tabletop image: one image for every process (api, worker, projector, sweeper);
# docker-compose.yml picks the command. Installed in editable mode so the API finds
# openapi.yaml and its templates in the source tree, exactly as in development.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
COPY pyproject.toml README.md openapi.yaml ./
COPY engine engine
COPY events events
COPY service service
COPY workers workers
# PyICU (player-name confusable skeletons) builds against the system ICU.
RUN apt-get update \
    && apt-get install -y --no-install-recommends libicu-dev pkg-config g++ \
    && rm -rf /var/lib/apt/lists/*
RUN pip install --no-cache-dir -e . \
    && useradd --system --no-create-home tabletop
USER tabletop

EXPOSE 8000
CMD ["tabletop", "serve", "--bind", "0.0.0.0:8000"]
