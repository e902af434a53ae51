"""The ``tvtable`` command: demo, serve, acl, audit verify, cardcam."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
import time
from pathlib import Path

DEMO_CONFIG = Path(__file__).resolve().parent.parent / "config" / "demo.toml"


def _setup_logging(verbose: bool = False) -> None:
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format="%(asctime)s %(levelname)-7s %(name)-18s %(message)s",
        datefmt="%H:%M:%S",
    )
    # aiohttp's access log would print every poll; the operator needs ours.
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING)


def _load(path: Path):
    from .settings import ConfigError, load_show

    try:
        return load_show(path)
    except ConfigError as exc:
        print(f"tvtable: {exc}", file=sys.stderr)
        raise SystemExit(2)


def _print_urls(runtime, host: str, port: int, *, stream=sys.stdout) -> None:
    base = f"http://{host}:{port}"
    table = runtime.show.tables[0].id
    print(f"\nTV Table is running: {runtime.show.name}", file=stream)
    print(f"  on-air overlay   {base}/overlay/table?table={table}   (open, delayed)", file=stream)
    print(f"  companion page   {base}/watch?table={table}   (viewers, delayed more)", file=stream)
    if "core" in getattr(runtime, "services", {"core"}) and not getattr(runtime, "standby", False):
        print(f"  dealer console   {base}/console?table={table}", file=stream)
    print(f"  log in           {base}/login", file=stream)
    print(f"  health           {base}/healthz", file=stream)
    if runtime.generated_tokens:
        print("\nTokens (generated once, kept in the data dir's tokens.toml; not shown again):", file=stream)
        for role, token in runtime.generated_tokens.items():
            print(f"  {role:<12} {token}", file=stream)
    elif (runtime.data_dir / "tokens.toml").exists():
        print(f"\nTokens: in {runtime.data_dir / 'tokens.toml'} (generated on the first run)", file=stream)
    print("", file=stream, flush=True)


async def _serve(args, show, *, demo: bool) -> int:
    from aiohttp import web

    from .show import ShowRuntime
    from .web.app import make_app

    from .settings import ConfigError

    redis_url = getattr(args, "redis", None) or os.environ.get("TVTABLE_REDIS_URL")
    services = getattr(args, "services", None) or frozenset({"core", "overlay"})
    cardcam = {"jobs": getattr(args, "jobs", None), "model_path": getattr(args, "model", None)}
    try:
        runtime = ShowRuntime(show, Path(args.data_dir), redis_url=redis_url, delay_override=getattr(args, "delay", None),
                              services=services, cardcam_options=cardcam, standby=getattr(args, "standby", False))
    except ConfigError as exc:  # a bad TVTABLE_TOKEN_* or tokens.toml
        print(f"tvtable: {exc}", file=sys.stderr)
        return 2
    app = make_app(runtime, manage_runtime=False)
    try:
        await runtime.start()
    except ConfigError as exc:  # e.g. a [redis] user without its password in the environment
        print(f"tvtable: {exc}", file=sys.stderr)
        await runtime.stop()
        return 2
    except Exception as exc:  # noqa: BLE001 - start-up problems are the operator's to fix: say what
        print(f"tvtable: cannot start the show: {exc}", file=sys.stderr)
        await runtime.stop()
        return 1
    if services == {"cardcam"}:  # camera workers only: no pages to serve on a capture PC
        return await _wait(args, runtime)
    host = args.host or show.host
    port = args.port or show.port
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    try:
        await site.start()
    except OSError as exc:
        print(f"tvtable: cannot listen on {host}:{port}: {exc.strerror}. Try --port.", file=sys.stderr)
        await runner.cleanup()
        await runtime.stop()
        return 1
    _print_urls(runtime, host, port)
    dealers = []
    if demo:
        from .demo import DemoDealer
        from .rehearsal import ScriptDealer

        script = getattr(args, "script_hands", None)
        frames_only = getattr(args, "frames_only", False)
        cameras = []
        for core in runtime.cores.values():
            dealer = ScriptDealer(core, script) if script else \
                DemoDealer(core, cameras=runtime.show if getattr(args, "cameras", False) or frames_only else None,
                           camera_reader=not frames_only)
            if getattr(dealer, "rig", None) is not None:
                cameras.append(dealer.rig.cameras_toml())
            task = asyncio.get_running_loop().create_task(dealer.run(), name=f"demo dealer {core.table}")
            task.add_done_callback(runtime._task_done)  # a dealer that dies says so in the log
            dealers.append(task)
        if frames_only and cameras:
            _write_camera_show(args, runtime, cameras)
    try:
        await _until_stopped(args.seconds)
    finally:
        # The dealers first, and wait for them: a dealer's cameras and their worker read Redis
        # until they have stopped, and runtime.stop() closes it under them.
        await _cancel_and_wait(dealers)
        await runtime.hub.close_all()  # sockets first, or the runner waits for each to time out
        await runner.cleanup()
        await runtime.stop()
        logging.getLogger("tvtable").info("show stopped cleanly")
    return 0


async def _cancel_and_wait(tasks: list[asyncio.Task], timeout: float = 15.0) -> None:
    """Cancel tasks and wait until they have ended (one blocked in XREAD can swallow a cancel)."""
    pending = {t for t in tasks if not t.done()}
    deadline = time.monotonic() + timeout
    while pending and time.monotonic() < deadline:
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=0.5)
    for task in pending:
        logging.getLogger("tvtable").warning("%s did not stop within %g s; stopping the show anyway",
                                             task.get_name(), timeout)


def _write_camera_show(args, runtime, cameras: list[str]) -> None:
    """``demo --frames-only``: the show file a separate card reader needs (the demo's own
    show plus its cameras), and the command that runs it."""
    path = Path(args.data_dir) / "demo-cameras.toml"
    text = Path(args.config).read_text(encoding="utf-8")
    path.write_text(text.rstrip() + "\n\n# the demo's cameras (tvtable demo --frames-only)\n" + "\n".join(cameras),
                    encoding="utf-8")
    from .store.acl import redacted

    url = redacted(runtime.url)
    logging.getLogger("tvtable").info("demo cameras: frames only; read them with: tvtable cardcam run --config %s "
                                      "--redis %s", path, url)


def _log_tasks() -> None:
    """Log where each background task of the show is waiting (for an operator chasing a stall).
    Frames and line numbers only: no values, so no card can reach the log."""
    import logging

    out = []
    for task in asyncio.all_tasks():
        frames, coro = [], task.get_coro()
        while coro is not None and len(frames) < 30:  # down the chain of awaits to where it waits
            frame = getattr(coro, "cr_frame", None) or getattr(coro, "ag_frame", None) or getattr(coro, "gi_frame", None)
            if frame is not None:
                frames.append(f"{frame.f_code.co_filename.rsplit('/', 1)[-1]}:{frame.f_lineno} {frame.f_code.co_name}")
            coro = getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None)
        out.append(f"  {task.get_name()}: {' > '.join(frames) or 'running'}")
    logging.getLogger("tvtable").warning("%d tasks (SIGUSR1):\n%s", len(out), "\n".join(sorted(out)))


async def _until_stopped(seconds: float) -> None:
    """Wait for Ctrl-C, SIGTERM (``docker stop``) or ``seconds`` (0: no limit)."""
    import signal

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()

    def stopping(name: str) -> None:
        logging.getLogger("tvtable").info("%s: stopping the show", name)
        stop.set()

    try:
        loop.add_signal_handler(signal.SIGTERM, stopping, "SIGTERM")
        # Ctrl-C by our own handler, not asyncio's cancel of the main task: a show started in
        # the background by a script inherits SIGINT ignored, and asyncio then leaves it so;
        # `kill -INT` must stop that show too.
        loop.add_signal_handler(signal.SIGINT, stopping, "Ctrl-C")
        loop.add_signal_handler(signal.SIGUSR1, _log_tasks)  # `kill -USR1 PID`: what is the show waiting on?
    except (NotImplementedError, RuntimeError):
        pass
    try:
        await asyncio.wait_for(stop.wait(), seconds or None)
    except asyncio.TimeoutError:
        pass
    except asyncio.CancelledError:
        # a cancel of the main task is one more way to say stop: taken as such, and undone,
        # so that asyncio.run does not take the show for cancelled once it has stopped cleanly
        asyncio.current_task().uncancel()
    finally:
        for sig in (signal.SIGTERM, signal.SIGINT):  # a second Ctrl-C while stopping: stop at once
            try:
                loop.remove_signal_handler(sig)
            except (NotImplementedError, RuntimeError):
                pass


async def _wait(args, runtime) -> int:
    """A process with no web server (camera workers only): run, then stop cleanly."""
    try:
        await _until_stopped(args.seconds)
    finally:
        await runtime.stop()
        logging.getLogger("tvtable").info("show stopped cleanly")
    return 0


def _run(coro) -> int:
    try:
        return asyncio.run(coro)
    except KeyboardInterrupt:
        return 0


def cmd_demo(args) -> int:
    _setup_logging(args.verbose)
    show = _load(Path(args.config))
    if getattr(args, "script", None):
        from . import phh
        from .rehearsal import playable, rehearsal_show

        try:
            args.script_hands = playable(phh.load(args.script))
            show = rehearsal_show(show, args.script_hands)
        except (phh.PhhFileError, ValueError) as exc:
            print(f"tvtable: --script {args.script}: {exc}", file=sys.stderr)
            return 2
    if not args.resume:
        _fresh_demo(Path(args.data_dir))
    return _run(_serve(args, show, demo=True))


def _fresh_demo(data_dir: Path) -> None:
    """A demo starts a new show each time: drop the old demo's Redis data (not the key or tokens)."""
    import shutil

    redis_dir = data_dir / "redis"
    if redis_dir.exists():
        shutil.rmtree(redis_dir)


def cmd_serve(args) -> int:
    from .show import parse_services

    _setup_logging(args.verbose)
    try:
        args.services = parse_services(args.services)
    except ValueError as exc:
        print(f"tvtable: {exc}", file=sys.stderr)
        return 2
    show = _load(Path(args.config))
    args.delay = None
    return _run(_serve(args, show, demo=False))


def cmd_acl(args) -> int:
    """Write the show's Redis ACL file (one user per process kind)."""
    from .store.acl import acl_file, password_env, passwords_from, user_name

    show = _load(Path(args.config))
    passwords, made = passwords_from(os.environ)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(acl_file(show, passwords))
    env_out = None
    if made:
        # Passwords nobody chose are written once, next to the ACL file, for the services'
        # environment (docker compose's env_file); never printed.
        env_out = Path(args.env_out) if args.env_out else out.with_suffix(".env")
        fd = os.open(env_out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.writelines(f"{password_env(kind)}={value}\n" for kind, value in made.items())
    users = {kind: user_name(show, kind) for kind in passwords}
    if args.json:
        print(json.dumps({"acl": str(out), "users": users, "passwords_written": str(env_out) if env_out else None,
                          "tables": [t.id for t in show.tables]}))
    else:
        print(f"wrote {out}: users {', '.join(f'{u} ({k})' for k, u in users.items())}; "
              f"tables {', '.join(t.id for t in show.tables)}")
        if env_out:
            print(f"new passwords for {', '.join(made)} are in {env_out} (mode 600): give each machine only its own")
    return 0


def cmd_audit_verify(args) -> int:
    return _run(_audit_verify(args))


async def _audit_verify(args) -> int:
    from .show_redis import show_redis
    from .store.chain import load_key
    from .store.verify import journal_tables, verify_table

    async with show_redis(args) as client:
        if client is None:
            return 2
        tables = [args.table] if args.table else await journal_tables(client)
        results = [await verify_table(client, t, load_key(Path(args.data_dir))) for t in tables]
    ok = bool(results) and all(r.ok for r in results)
    if args.json:
        print(json.dumps({"ok": ok, "tables": [{"table": r.table, "events": r.events, "head": r.head_seq, "ok": r.ok, "problems": r.problems} for r in results]}))
    else:
        if not results:
            print("no journals found")
        for r in results:
            verdict = "chain and signature verified" if r.ok else "BROKEN: " + "; ".join(r.problems)
            print(f"table {r.table}: {r.events} events, head seq {r.head_seq}: {verdict}")
    return 0 if ok else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tvtable", description="TV Table: the feature table of a live poker tournament, for broadcast.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = sub.add_parser("demo", help="run the demo show on the embedded Redis", description="Start everything with config/demo.toml and a built-in dealer that plays a show.")
    demo.add_argument("--seconds", type=float, default=0, help="stop after N seconds (default: run until Ctrl-C)")
    demo.add_argument("--delay", type=float, default=10.0, help="broadcast delay in seconds (default 10)")
    demo.add_argument("--port", type=int, default=None, help="HTTP port (default from the config: 8080)")
    demo.add_argument("--host", default=None, help="address to bind (default 127.0.0.1)")
    demo.add_argument("--data-dir", default="var", help="where Redis data, the journal key and tokens live (default ./var)")
    demo.add_argument("--config", default=str(DEMO_CONFIG), help=argparse.SUPPRESS)
    demo.add_argument("--resume", action="store_true", help="continue the previous demo show instead of starting a new one")
    demo.add_argument("--script", default=None, metavar="FILE.phh",
                      help="rehearse recorded hands (a PHH file) through the whole chain instead of the random demo dealer")
    demo.add_argument("--cameras", action="store_true",
                      help="run the whole camera chain: synthetic hole-card and board camera frames read by the "
                           "real card reader (slower; needs gnome-cards-data and rsvg-convert)")
    demo.add_argument("--frames-only", action="store_true",
                      help="like --cameras, but push the frames only and run no card reader here: read them with "
                           "`tvtable cardcam run --config DATA_DIR/demo-cameras.toml --redis URL` (written at start), "
                           "as a worker on another machine would")
    demo.add_argument("--redis", default=None, help="external Redis URL instead of the embedded one")
    demo.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    demo.set_defaults(func=cmd_demo)

    serve = sub.add_parser("serve", help="run a real show from a config file", description="Run a show: cores, releasers, API, feeds and pages.")
    serve.add_argument("--config", required=True, help="the show's TOML file")
    serve.add_argument("--data-dir", default="var", help="where Redis data, the journal key and tokens live (default ./var)")
    serve.add_argument("--redis", default=None, help="external Redis URL (or TVTABLE_REDIS_URL); default: embedded")
    serve.add_argument("--port", type=int, default=None, help="HTTP port (default from the config)")
    serve.add_argument("--host", default=None, help="address to bind (default from the config: 127.0.0.1)")
    serve.add_argument("--services", default="core,overlay,cardcam",
                       help="what runs in this process, comma-separated: core (cores, releasers, inbox, crew pages), "
                            "overlay (delayed pages and sockets only; scale these out), cardcam (camera workers). "
                            "Default: all three")
    serve.add_argument("--standby", action="store_true",
                       help="with core: run only the releasers, waiting to take over each table's release when the "
                            "writing core dies (run the one writing core without it)")
    serve.add_argument("--jobs", type=int, default=None, metavar="N", help="cardcam: vision processes per camera group")
    serve.add_argument("--model", default=None, metavar="FILE", help="cardcam: model file (default var/cardcam/model.npz)")
    serve.add_argument("--seconds", type=float, default=0, help="stop after N seconds (default: run until stopped)")
    serve.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    serve.set_defaults(func=cmd_serve, resume=True)

    acl = sub.add_parser("acl", help="write the Redis ACL file for a show on several machines",
                         description="Write a Redis ACL file with one user per process kind: core (owns the journals), "
                                     "overlay (reads only the delayed public and commentary streams and the control "
                                     "stream) and cardcam (may only add to the inboxes). Passwords come from "
                                     "TVTABLE_REDIS_PASSWORD_CORE, _OVERLAY and _CARDCAM; missing ones are made up and "
                                     "written to a mode-600 env file next to the ACL file.")
    acl.add_argument("--config", required=True, help="the show's TOML file (its tables name the keys)")
    acl.add_argument("--out", required=True, help="the ACL file to write (redis.conf: aclfile)")
    acl.add_argument("--env-out", default=None, help="where made-up passwords go (default: OUT with .env)")
    acl.add_argument("--json", action="store_true", help="machine-readable output")
    acl.set_defaults(func=cmd_acl)

    audit = sub.add_parser("audit", help="check the journals", description="Audit the journals.")
    audit_sub = audit.add_subparsers(dest="audit_command", required=True, metavar="ACTION")
    verify = audit_sub.add_parser("verify", help="check each journal's hash chain and signed head", description="Re-walk every event's SHA-256 link and check the HMAC-signed head. Exits 1 on any break.")
    verify.add_argument("--data-dir", default="var", help="the show's data dir (default ./var)")
    verify.add_argument("--table", default=None, help="only this table")
    verify.add_argument("--redis", default=None, help="external Redis URL (default: the embedded one in the data dir)")
    verify.add_argument("--json", action="store_true", help="machine-readable output")
    verify.set_defaults(func=cmd_audit_verify)

    from .bench_cli import add_parser as add_bench
    from .equity_cli import add_parser as add_equity
    from .penalties_cli import add_parser as add_penalties
    from .phh_cli import add_parser as add_phh

    add_equity(sub)
    add_bench(sub)
    add_phh(sub)
    add_penalties(sub)
    try:
        from cardcam.cli import add_parser as add_cardcam
    except ImportError:
        pass
    else:
        add_cardcam(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``tvtable`` console script."""
    from .bench_cli import split_extra

    argv, extra = split_extra(list(sys.argv[1:] if argv is None else argv))
    args = build_parser().parse_args(argv)
    if extra:
        args.extra = extra
    return int(args.func(args) or 0)


if __name__ == "__main__":
    raise SystemExit(main())
