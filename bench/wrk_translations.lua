-- wrk's requests for bench/cluster.py: short fast-tier translations, each unique (so that no
-- cache answers one). TARGET: a language (es-ES) or "mix" (es-ES and pt-BR in turn); TOKEN and
-- ORGANIZATION from the environment.
local words = {"parcel", "order", "refund", "invoice", "courier", "warehouse", "label",
               "address", "screen", "charger"}
local token = os.getenv("TOKEN")
local organization = os.getenv("ORGANIZATION")
local target = os.getenv("TARGET")
local counter = 0
math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))

request = function()
  counter = counter + 1
  local language = target
  if target == "mix" then
    language = (counter % 2 == 0) and "es-ES" or "pt-BR"
  end
  local id = string.format("wrk-%d-%d", math.random(1, 1000000000), counter)
  local text = string.format(
    "Hello, my %s %s number %d has not arrived yet. Can you help?",
    words[math.random(#words)], words[math.random(#words)], math.random(1, 1000000))
  local body = string.format(
    '{"session":{"channel":{"language":"%s"}},"request":{"requestId":"%s",' ..
    '"connections":{"threadId":"t-%s"},"context":{"organizationId":"%s"},' ..
    '"settings":{"translationMode":"fast"},"scope":{"conversations":[{"conversationId":"c-%s",' ..
    '"participants":[{"participantId":"c","role":"user"}],' ..
    '"messages":[{"participantId":"c","content":"%s"}]}]}}}',
    language, id, id, organization, id, text)
  return wrk.format("POST", "/message/translate",
    {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. token}, body)
end
