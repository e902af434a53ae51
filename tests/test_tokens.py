"""People and tokens: from the show file, from TVTABLE_TOKEN_<ROLE>, or generated once."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from broadcast.settings import ROLES, load_show
from broadcast.tokens import TokenSourceError, resolve_people, token_fingerprint

CONFIG = Path(__file__).resolve().parent.parent / "config"
DEMO = load_show(CONFIG / "demo.toml")  # no [[people]]
EXAMPLE = load_show(CONFIG / "example.toml")  # one person per role
NOT_SECURE = [r for r in ROLES if r != "secure"]


def roles(people) -> list[str]:
    return sorted(p.role for p in people)


def test_people_from_the_show_file(tmp_path):
    people, generated = resolve_people(EXAMPLE, tmp_path, {})
    assert people == EXAMPLE.people and generated == {}
    assert not (tmp_path / "tokens.toml").exists()


def test_env_tokens_give_one_anonymous_person_per_role_including_secure(tmp_path):
    env = {"TVTABLE_TOKEN_DEALER": "d" * 20, "TVTABLE_TOKEN_SECURE": "s" * 20, "PATH": "/usr/bin"}
    people, generated = resolve_people(DEMO, tmp_path, env)
    assert {(p.name, p.role, p.token) for p in people} == {
        ("anonymous dealer", "dealer", "d" * 20),
        ("anonymous secure", "secure", "s" * 20),
    }
    assert generated == {}
    assert not (tmp_path / "tokens.toml").exists(), "configured tokens: nothing generated"


def test_env_tokens_add_to_the_show_file_people(tmp_path):
    people, _ = resolve_people(EXAMPLE, tmp_path, {"TVTABLE_TOKEN_VIEWER": "v" * 20})
    assert len(people) == len(EXAMPLE.people) + 1
    assert people[-1].name == "anonymous viewer"


def test_an_empty_env_token_counts_as_unset(tmp_path):
    people, generated = resolve_people(DEMO, tmp_path, {"TVTABLE_TOKEN_SECURE": ""})
    assert "secure" not in roles(people)
    assert sorted(generated) == sorted(NOT_SECURE)


def test_env_token_for_an_unknown_role_is_refused(tmp_path):
    with pytest.raises(TokenSourceError) as info:
        resolve_people(DEMO, tmp_path, {"TVTABLE_TOKEN_FLOOR": "f" * 20})
    assert str(info.value).startswith("environment variable 'TVTABLE_TOKEN_FLOOR': 'floor' is not a role")


def test_short_env_token_is_refused_without_showing_it(tmp_path):
    with pytest.raises(TokenSourceError) as info:
        resolve_people(DEMO, tmp_path, {"TVTABLE_TOKEN_DEALER": "hunter2"})
    assert "at least 16" in str(info.value) and "hunter2" not in str(info.value)


def test_env_token_equal_to_a_show_file_token_is_refused(tmp_path):
    taken = EXAMPLE.people[0].token
    with pytest.raises(TokenSourceError, match="same token as Sam Ortiz"):
        resolve_people(EXAMPLE, tmp_path, {"TVTABLE_TOKEN_VIEWER": taken})


def test_no_tokens_configured_generates_one_per_role_but_never_secure(tmp_path):
    people, generated = resolve_people(DEMO, tmp_path, {})
    assert sorted(generated) == sorted(NOT_SECURE)
    assert "secure" not in generated and roles(people) == sorted(NOT_SECURE)
    assert all(len(t) >= 32 for t in generated.values())
    assert len(set(generated.values())) == len(generated)
    assert {p.role: p.token for p in people} == generated


def test_generated_token_file_is_private(tmp_path):
    resolve_people(DEMO, tmp_path, {})
    mode = stat.S_IMODE(os.stat(tmp_path / "tokens.toml").st_mode)
    assert mode == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["tokens.toml"], "no temporary file left behind"


def test_generated_tokens_are_kept_for_the_next_start_and_not_shown_again(tmp_path):
    first, generated = resolve_people(DEMO, tmp_path, {})
    again, generated_again = resolve_people(DEMO, tmp_path, {})
    assert again == first and generated and generated_again == {}


def test_creates_the_data_dir(tmp_path):
    _, generated = resolve_people(DEMO, tmp_path / "new" / "data", {})
    assert generated and (tmp_path / "new" / "data" / "tokens.toml").exists()


def write_token_file(tmp_path: Path, body: str, mode: int = 0o600) -> None:
    path = tmp_path / "tokens.toml"
    path.write_text(body)
    path.chmod(mode)


def test_token_file_readable_by_others_is_refused(tmp_path):
    resolve_people(DEMO, tmp_path, {})
    (tmp_path / "tokens.toml").chmod(0o644)
    with pytest.raises(TokenSourceError, match=r"mode 0644\); run: chmod 600"):
        resolve_people(DEMO, tmp_path, {})


def test_token_file_with_a_secure_token_is_refused(tmp_path):
    write_token_file(tmp_path, '[tokens]\nsecure = "ssssssssssssssssssss"\n')
    with pytest.raises(TokenSourceError, match="secure token, which is never kept here"):
        resolve_people(DEMO, tmp_path, {})


def test_broken_token_file_is_refused(tmp_path):
    write_token_file(tmp_path, "[tokens\n")
    with pytest.raises(TokenSourceError) as info:
        resolve_people(DEMO, tmp_path, {})
    assert str(info.value).startswith(f"token file '{tmp_path / 'tokens.toml'}': is not valid TOML")


def test_token_file_with_a_short_token_is_refused(tmp_path):
    write_token_file(tmp_path, '[tokens]\ndealer = "short"\n')
    with pytest.raises(TokenSourceError, match="tokens.dealer is 5 characters"):
        resolve_people(DEMO, tmp_path, {})


def test_fingerprint_tells_tokens_apart_without_revealing_them():
    token = "dealer-token-0123456789"
    fp = token_fingerprint(token)
    assert fp == token_fingerprint(token) != token_fingerprint(token + "x")
    assert len(fp) == 12 and int(fp, 16) >= 0 and token not in fp
