"""deploy/compose.yaml: it parses, every image is pinned by a tag, every RAG_ variable it sets is
a setting (a typo would be ignored by the app with only a warning), and what the app's service
points at is another service of the file."""

import re

import yaml

from rag.config import setting_variables
from tests.conftest import REPO

COMPOSE = REPO / "deploy" / "compose.yaml"


def services() -> dict:
    return yaml.safe_load(COMPOSE.read_text())["services"]


def test_every_image_is_pinned_by_a_tag():
    images = {name: service["image"] for name, service in services().items()}
    assert set(images) == {"app", "chroma", "embeddings"}
    for name, image in images.items():
        tag = image.rpartition(":")[2] if ":" in image.rpartition("/")[2] else ""
        pinned = re.fullmatch(r"v?\d+(\.\d+)+(-[a-z0-9]+)?", tag)
        assert pinned, f"{name}: {image} is not pinned by a version tag"
    built = services()["app"]["build"]
    assert (COMPOSE.parent / built["context"] / built["dockerfile"]).is_file()


def test_every_rag_variable_is_a_setting_and_names_a_service_that_exists():
    known = {variable for variable, _ in setting_variables()}
    app = services()["app"]["environment"]
    used = {name for service in services().values() for name in service.get("environment", {})}
    assert {name for name in used if name.startswith("RAG_")} - known == set()
    assert app["RAG_CHROMA_HOST"] in services()
    assert app["RAG_EMBEDDING_BACKEND"] == "openai"
    url = re.fullmatch(r"http://([\w-]+):(\d+)", app["RAG_EMBEDDING_SERVER__BASE_URL"])
    command = services()[url[1]]["command"] if url and url[1] in services() else ""
    assert f"--port {url[2]}" in command
    assert f"--served-model-name {app['RAG_EMBEDDING_SERVER__MODEL']}" in command
