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
