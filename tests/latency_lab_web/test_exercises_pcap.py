"""The model's packets of a problem as a pcap file: scapy reads back the model's packet count, times, sizes and TCP
handshake (latency_lab_web/web/pcap.py)."""

from __future__ import annotations

import io

import pytest
from flask.testing import FlaskClient
from scapy.layers.inet import IP, TCP, UDP
from scapy.utils import rdpcap

from latency_lab import predict
from latency_lab.studies import exercises as ex
from latency_lab_web.web.pcap import capture_time_ms


@pytest.mark.parametrize("template", list(ex.TEMPLATES))
@pytest.mark.parametrize("seed", ["1", "ann"])
def test_the_capture_holds_the_models_packets(client: FlaskClient, template: str, seed: str) -> None:
    v = ex.variant(template, seed)
    r = client.get(f"/exercises/{template}.pcap?seed={seed}")
    assert r.status_code == 200 and r.mimetype == "application/vnd.tcpdump.pcap"
    captured = list(rdpcap(io.BytesIO(r.data)))
    model = sorted(
        predict(v.scenario, packets=True)["results"][0]["packets"], key=lambda p: (capture_time_ms(p), p["n"])
    )
    assert len(captured) == len(model)
    for got, want in zip(captured, model, strict=True):
        assert float(got.time) * 1000 == pytest.approx(capture_time_ms(want), abs=1e-3)
        ip = got[IP]
        assert ip.src == ("10.0.0.1" if want["direction"] == "up" else "10.0.0.2")
        layer = ip[UDP] if v.protocol == "h3" else ip[TCP]
        assert len(bytes(layer.payload)) == want["bytes"]
    if v.protocol != "h3":
        syn, synack, ack = (p[TCP] for p in captured[:3])
        assert (str(syn.flags), str(synack.flags), str(ack.flags)) == ("S", "SA", "A")
        assert synack.ack == syn.seq + 1 and ack.ack == synack.seq + 1
        first_down = next(p[TCP] for p in captured if p[IP].src == "10.0.0.2" and len(bytes(p[TCP].payload)))
        assert first_down.seq == synack.seq + 1


def test_a_bad_seed_is_a_400(client: FlaskClient) -> None:
    r = client.get("/exercises/loss.pcap?seed=a%20b")
    assert r.status_code == 400 and "<strong>seed</strong>" in r.get_data(as_text=True)
