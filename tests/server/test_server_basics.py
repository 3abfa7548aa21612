import httpx


def test_ping_and_run_code(server):
    assert httpx.get(server.url + "/v1/ping").json() == "pong"
    response = httpx.post(server.url + "/run_code", json={"code": "print(input()[::-1])", "stdin": "abc",
                                                          "language": "python"})
    assert response.status_code == 200 and response.headers["x-request-id"]
    body = response.json()
    assert (body["status"], body["run_result"]["stdout"], body["run_result"]["return_code"]) == ("Success", "cba\n", 0)
