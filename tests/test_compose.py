"""docker-compose.yml and the Dockerfile, checked without a Docker engine: the file's
structure against a JSON Schema (tests/compose.schema.json), every command it runs
against our own CLI, and least privilege (each service holds only its own password)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest
import yaml

from broadcast.cli import build_parser
from broadcast.show import parse_services
from broadcast.store.acl import password_env

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]
SCHEMA = json.loads((ROOT / "tests" / "compose.schema.json").read_text())
TVTABLE_SERVICES = [name for name, svc in SERVICES.items() if svc.get("command", [""])[0] == "tvtable"]


def flag(command: list[str], name: str) -> str:
    return command[command.index(name) + 1]


def mounts(service: dict) -> dict[str, str]:
    """Container path -> source (a host path or a named volume)."""
    return {v.split(":")[1]: v.split(":")[0] for v in service.get("volumes", [])}


def test_the_file_matches_the_compose_schema():
    jsonschema.validate(COMPOSE, SCHEMA)


def test_the_schema_catches_a_misspelt_key():
    broken = {"services": {"core": {**SERVICES["core"], "comand": ["tvtable"]}}}
    with pytest.raises(jsonschema.ValidationError, match="comand"):
        jsonschema.validate(broken, SCHEMA)


def test_it_runs_redis_core_scalable_overlays_and_cardcam():
    assert {"redis", "core", "overlay", "cardcam"} <= set(SERVICES)
    kinds = {name: parse_services(flag(SERVICES[name]["command"], "--services")) for name in ("core", "overlay", "cardcam")}
    assert kinds == {"core": {"core"}, "overlay": {"overlay"}, "cardcam": {"cardcam"}}
    overlay = SERVICES["overlay"]
    assert overlay["deploy"]["replicas"] >= 2
    assert all(":" not in port for port in overlay["ports"]), "a fixed host port stops `--scale overlay=N`"


def test_redis_keeps_every_acknowledged_event_and_speaks_only_tls_with_the_acl_file():
    command = SERVICES["redis"]["command"]
    assert command[0] == "redis-server"
    assert flag(command, "--appendonly") == "yes" and flag(command, "--appendfsync") == "always"
    assert flag(command, "--port") == "0" and flag(command, "--tls-port") == "6380"
    # The ACL file Redis reads is the one `tvtable acl` writes, through a shared volume.
    acl_out = flag(SERVICES["acl"]["command"], "--out")
    acl_volume = mounts(SERVICES["acl"])[str(Path(acl_out).parent)]
    redis_mounts = mounts(SERVICES["redis"])
    acl_in = flag(command, "--aclfile")
    assert redis_mounts[str(Path(acl_in).parent)] == acl_volume and Path(acl_in).name == Path(acl_out).name
    assert SERVICES["redis"]["depends_on"]["acl"]["condition"] == "service_completed_successfully"
    for option in ("--tls-cert-file", "--tls-key-file", "--tls-ca-cert-file"):
        assert str(Path(flag(command, option)).parent) in redis_mounts


@pytest.mark.parametrize("name", TVTABLE_SERVICES)
def test_every_command_is_one_our_cli_takes(name):
    command = SERVICES[name]["command"]
    args = build_parser().parse_args(command[1:])  # exits (SystemExit) on an unknown command or option
    assert callable(args.func)
    config = getattr(args, "config", None)
    assert str(Path(config).parent) in mounts(SERVICES[name]), f"{name}: {config} is not mounted"
    if getattr(args, "redis", None):
        assert args.redis.startswith("rediss://redis:"), f"{name} must reach Redis over TLS"


@pytest.mark.parametrize("kind", ["core", "overlay", "cardcam"])
def test_each_service_holds_only_its_own_redis_password(kind):
    env = SERVICES[kind].get("environment", {})
    passwords = {key for key in env if key.startswith("TVTABLE_REDIS_PASSWORD_")}
    assert passwords == {password_env(kind)}
    assert re.fullmatch(r"\$\{TVTABLE_REDIS_PASSWORD_[A-Z]+:\?.+\}", env[password_env(kind)]), "never a literal password"
    # The ACL writer needs all three, and its output holds only their hashes.
    assert {password_env(k) for k in ("core", "overlay", "cardcam")} <= set(SERVICES["acl"]["environment"])


def test_the_dockerfile_installs_the_cli_and_runs_unprivileged():
    text = (ROOT / "Dockerfile").read_text()
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]
    assert lines[0].startswith("FROM python:3.1")
    for package in ("broadcast", "overlays", "cardcam"):
        assert any(re.fullmatch(rf"COPY {package} \./{package}", line) for line in lines), package
    assert any(line.startswith("RUN pip install") and " . " in f"{line} " for line in lines)
    assert "USER tvtable" in lines
    images = {svc.get("image") for name, svc in SERVICES.items() if name in TVTABLE_SERVICES or name == "acl"}
    assert images == {"tvtable:latest"}
    ignored = (ROOT / ".dockerignore").read_text().split()
    for secret in ("secrets", "tls", "var", ".venv"):
        assert secret in ignored, f"{secret} must never be copied into the image"
