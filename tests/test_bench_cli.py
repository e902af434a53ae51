"""``tvtable bench`` lists and runs the benchmarks in benchmarks/."""

from broadcast.cli import main


def test_bench_lists_every_benchmark_with_what_it_measures(capsys):
    assert main(["bench", "--list"]) == 0
    out = capsys.readouterr().out
    for name in ("rebuild_day", "equity_speed", "release_punctuality", "command_to_live", "cardcam_accuracy",
                 "cardcam_throughput"):
        assert name in out
    assert "12-hour day" in out


def test_bench_refuses_an_unknown_benchmark_naming_the_ones_there_are(capsys):
    assert main(["bench", "no_such_bench"]) == 2
    err = capsys.readouterr().err
    assert "no benchmark no_such_bench" in err and "rebuild_day" in err


def test_a_benchmarks_indented_json_is_read_as_json_not_as_text():
    from broadcast.bench_cli import _result

    assert _result('{\n  "p50": 1.5,\n  "n": 3\n}\n') == {"p50": 1.5, "n": 3}
    assert _result('warming up\n{"p50": 2}\n') == {"p50": 2}
    assert _result("not json at all") == "not json at all"


def test_arguments_after_a_double_dash_go_to_the_benchmark_script(capsys):
    # "--help" reaches the script (its usage names its own options), not tvtable's parser
    assert main(["bench", "cardcam_throughput", "--", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--seats" in out and "--stagger" in out
