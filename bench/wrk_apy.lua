-- wrk's requests for bench/throughput.py against apertium-apy: the same short eng→spa
-- messages as wrk_translations.lua sends threadwise, each unique, as APy's form POST.
local words = {"parcel", "order", "refund", "invoice", "courier", "warehouse", "label",
               "address", "screen", "charger"}
math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))

request = function()
  local text = string.format(
    "Hello, my %s %s number %d has not arrived yet. Can you help?",
    words[math.random(#words)], words[math.random(#words)], math.random(1, 1000000))
  local body = "langpair=eng%7Cspa&q=" .. text:gsub(" ", "+"):gsub(",", "%%2C"):gsub("%?", "%%3F")
  return wrk.format("POST", "/translate",
    {["Content-Type"] = "application/x-www-form-urlencoded"}, body)
end
