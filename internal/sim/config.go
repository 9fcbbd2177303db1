package sim

import "time"

// Config is one simulated k6 run. The zero values of optional fields are
// replaced by the defaults documented on each field when the run starts (see
// Normalize); Validate reports what cannot be simulated.
type Config struct {
	// Seed seeds every random draw (math/rand/v2 PCG). Same Seed, same run.
	Seed uint64 `yaml:"seed,omitempty"`
	// Start is the wall-clock time of the run's t = 0; zero means
	// DefaultStart. Samples are time-stamped Start + simulated time.
	Start time.Time `yaml:"start,omitempty"`
	// Source names the samples' source (ingest.Sample.Source); "" means "sim".
	Source string `yaml:"source,omitempty"`
	// Server is the HTTP/gRPC server every request scenario shares.
	Server Server `yaml:"server,omitempty"`
	// WS is the WebSocket fan-out server; it is needed by scenarios with WS
	// set and ignored otherwise.
	WS *WSServer `yaml:"ws,omitempty"`
	// Scenarios are the k6 scenarios; at least one. They share the server
	// and may overlap in time.
	Scenarios []Scenario `yaml:"scenarios,omitempty"`
	// RunTags are k6's options.tags: added to every sample (extra_tags in
	// the CSV), vus and vus_max included.
	RunTags map[string]string `yaml:"tags,omitempty"`
	// Output shapes the samples (which system tags, which trends).
	Output Output `yaml:"output,omitempty"`
}

// DefaultStart is the wall-clock start of a run whose Config.Start is zero:
// 2026-12-01T00:00:00Z (unix 1796083200), the day the k6-v2 corpus was
// recorded.
var DefaultStart = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

// Server is a c-server FIFO queue: a request holds one of Servers slots for
// its service time; requests that find every slot busy wait in one FIFO
// queue shared by all classes. Its truth capacity is C = Servers / E[S]
// successful responses per second, E[S] being the mix-weighted mean service
// time of the requests it serves (see Truth).
//
// On arrival a request goes through, in order: the rate limiter (RateLimit),
// the class's load-independent failure draw (Class.FailFraction), the
// class's shedding rule (Class.ShedWaiting), then a free slot or the queue;
// in the queue, the class's Class.MaxWait may reject it.
type Server struct {
	// Servers is c, the number of requests served at once (worker slots).
	Servers int `yaml:"servers,omitempty"`
	// Classes are the request classes (endpoints); at least one when any
	// scenario sends requests.
	Classes []Class `yaml:"classes,omitempty"`
	// RateLimit, when set, refuses requests fast before they reach the
	// queue ("refusals first").
	RateLimit *RateLimit `yaml:"rateLimit,omitempty"`
	// AbandonTimedOut drops a request from the queue when its client timed
	// out before it got a slot. The default (false) is a server that does
	// not notice the client left and serves it anyway, as the corpus server
	// does; that work is counted in the utilisation but is no success.
	AbandonTimedOut bool `yaml:"abandonTimedOut,omitempty"`
}

// RateLimit is a token bucket in front of the server: tokens refill at
// RatePerS per second up to Burst; a request that finds no token is refused
// at once with Status. Refused requests take no token and no service time.
type RateLimit struct {
	// RatePerS is the refill rate in requests per second (> 0).
	RatePerS float64 `yaml:"rate,omitempty"`
	// Burst is the bucket size in requests; 0 means 1.
	Burst float64 `yaml:"burst,omitempty"`
	// Status is the refusal status; 0 means 429 for HTTP and 8
	// (RESOURCE_EXHAUSTED) for gRPC.
	Status int `yaml:"status,omitempty"`
}

// Protocols of a request class.
const (
	ProtoHTTP = "http" // HTTP/1.1: http_reqs, http_req_* and http_req_failed samples
	ProtoGRPC = "grpc" // gRPC unary: grpc_req_duration samples only
)

// Class is one request class: an endpoint with its k6 name tag, its share of
// a scenario's mix, its service time and its overload behaviour.
type Class struct {
	// Name is the k6 name tag (and url, unless URL is set) of an HTTP class,
	// and the key a scenario's Mix or Flow uses. Unique.
	Name string `yaml:"name,omitempty"`
	// Protocol is ProtoHTTP (default) or ProtoGRPC.
	Protocol string `yaml:"protocol,omitempty"`
	// Method is the HTTP method (default GET) or the gRPC method name (the
	// method tag, default "Check").
	Method string `yaml:"method,omitempty"`
	// URL is the url tag; "" means Name for HTTP (k6 sets url to the name
	// tag when name is set) and Address + "/" + Service + "/" + Method for
	// gRPC.
	URL string `yaml:"url,omitempty"`
	// Service is the gRPC service (the service tag), e.g.
	// "grpc.health.v1.Health"; default "grpc.health.v1.Health". The gRPC
	// name tag is "/" + Service + "/" + Method.
	Service string `yaml:"service,omitempty"`
	// Address is the gRPC target address; default "127.0.0.1:18081".
	Address string `yaml:"address,omitempty"`
	// Share is the class's weight in the default mix (scenarios without Mix
	// or Flow); weights need not sum to 1.
	Share float64 `yaml:"share,omitempty"`
	// ServiceTime is the time a request of this class holds a slot (ms).
	ServiceTime Dist `yaml:"serviceTime,omitempty"`
	// FailFraction of this class's requests fail at once at every load
	// (load-independent errors, e.g. 500 or gRPC NOT_FOUND), in [0, 1].
	FailFraction float64 `yaml:"failFraction,omitempty"`
	// FailStatus is their status; 0 means 500 (HTTP) or 5 NOT_FOUND (gRPC).
	FailStatus int `yaml:"failStatus,omitempty"`
	// FailLatency is how long such a failure takes to answer; default 0.
	FailLatency time.Duration `yaml:"failLatency,omitempty"`
	// ShedWaiting > 0 sheds a request of this class at once (status
	// ShedStatus, ~0 ms) when more than ShedWaiting requests are already
	// waiting for a slot; 0 never sheds.
	ShedWaiting int `yaml:"shedWaiting,omitempty"`
	// ShedStatus is the shedding status; 0 means 503 (HTTP) or 14
	// UNAVAILABLE (gRPC).
	ShedStatus int `yaml:"shedStatus,omitempty"`
	// MaxWait > 0 rejects a request of this class that waited MaxWait
	// without getting a slot, at that moment (status MaxWaitStatus; no
	// service time); 0 waits forever.
	MaxWait time.Duration `yaml:"maxWait,omitempty"`
	// MaxWaitStatus is that status; 0 means 429 (HTTP) or 8
	// RESOURCE_EXHAUSTED (gRPC).
	MaxWaitStatus int `yaml:"maxWaitStatus,omitempty"`
	// Timeout is k6's request timeout: a request not answered by then fails
	// with status 0 and error_code 1050 (gRPC: status 4 DEADLINE_EXCEEDED),
	// its duration the timeout. 0 means k6's default, 60 s.
	Timeout time.Duration `yaml:"timeout,omitempty"`
	// RequestBytes is what a request sends (data_sent, bytes); 0 means 100.
	RequestBytes int `yaml:"requestBytes,omitempty"`
	// ResponseBytes is what a successful response brings (data_received,
	// bytes); 0 means 200.
	ResponseBytes int `yaml:"responseBytes,omitempty"`
	// ErrorBytes is what an error response brings (bytes); 0 means 150. A
	// timeout brings nothing.
	ErrorBytes int `yaml:"errorBytes,omitempty"`
	// Tags are user tags on this class's request samples (extra_tags), e.g.
	// {call: missing}. A key equal to a system tag column fills that column,
	// as in k6.
	Tags map[string]string `yaml:"tags,omitempty"`
	// Check, when not "", names a k6 check run on every response of this
	// class: a checks sample (tag check) of 1 when the status is
	// CheckStatus, else 0.
	Check string `yaml:"check,omitempty"`
	// CheckStatus is the status the check expects; 0 means 200 (HTTP) or 0
	// OK (gRPC) — set CheckFailStatus to expect the class's FailStatus.
	CheckStatus int `yaml:"checkStatus,omitempty"`
	// CheckFailStatus makes the check expect FailStatus (a check such as
	// "missing -> NotFound").
	CheckFailStatus bool `yaml:"checkFailStatus,omitempty"`
}

// Kinds of Dist.
const (
	DistDeterministic = "deterministic" // always MeanMS
	DistExponential   = "exponential"   // exponential with mean MeanMS
	DistUniform       = "uniform"       // uniform on [MinMS, MaxMS]
	DistLognormal     = "lognormal"     // lognormal with mean MeanMS and coefficient of variation CV
)

// Dist is a distribution of a time in milliseconds.
type Dist struct {
	// Kind is one of DistDeterministic, DistExponential, DistUniform,
	// DistLognormal.
	Kind string `yaml:"kind,omitempty"`
	// MeanMS is the mean (ms) of deterministic, exponential and lognormal.
	MeanMS float64 `yaml:"mean,omitempty"`
	// MinMS and MaxMS bound a uniform distribution (ms).
	MinMS float64 `yaml:"min,omitempty"`
	MaxMS float64 `yaml:"max,omitempty"`
	// CV is a lognormal's coefficient of variation (σ/mean, ≥ 0).
	CV float64 `yaml:"cv,omitempty"`
}

// Det returns a deterministic time of ms milliseconds.
func Det(ms float64) Dist { return Dist{Kind: DistDeterministic, MeanMS: ms} }

// Exp returns an exponential time with mean ms milliseconds.
func Exp(ms float64) Dist { return Dist{Kind: DistExponential, MeanMS: ms} }

// Uniform returns a time uniform on [minMS, maxMS] milliseconds.
func Uniform(minMS, maxMS float64) Dist { return Dist{Kind: DistUniform, MinMS: minMS, MaxMS: maxMS} }

// LogNormal returns a lognormal time with mean ms milliseconds and
// coefficient of variation cv.
func LogNormal(ms, cv float64) Dist { return Dist{Kind: DistLognormal, MeanMS: ms, CV: cv} }

// Executors of a Scenario (k6's executor names).
const (
	ConstantArrivalRate = "constant-arrival-rate"
	RampingArrivalRate  = "ramping-arrival-rate"
	ConstantVUs         = "constant-vus"
	RampingVUs          = "ramping-vus"
)

// Scenario is one k6 scenario: an executor and what one iteration does.
type Scenario struct {
	// Name is the scenario tag; unique.
	Name string `yaml:"name,omitempty"`
	// Executor is one of ConstantArrivalRate, RampingArrivalRate,
	// ConstantVUs, RampingVUs.
	Executor string `yaml:"executor,omitempty"`
	// StartTime delays the scenario's start from the run's start.
	StartTime time.Duration `yaml:"startTime,omitempty"`

	// Rate is constant-arrival-rate's iterations per TimeUnit.
	Rate float64 `yaml:"rate,omitempty"`
	// Duration is the length of constant-arrival-rate and constant-vus.
	Duration time.Duration `yaml:"duration,omitempty"`
	// TimeUnit is the unit of Rate, StartRate and arrival-rate stage
	// targets; 0 means 1 s.
	TimeUnit time.Duration `yaml:"timeUnit,omitempty"`
	// StartRate is ramping-arrival-rate's rate at its start, per TimeUnit.
	StartRate float64 `yaml:"startRate,omitempty"`
	// Stages are ramping-arrival-rate's rates (per TimeUnit) or
	// ramping-vus's VU counts, reached linearly over each stage, as k6 does.
	Stages []Stage `yaml:"stages,omitempty"`
	// PreAllocatedVUs and MaxVUs size an arrival-rate executor's VU pool;
	// MaxVUs 0 means PreAllocatedVUs.
	PreAllocatedVUs int `yaml:"preAllocatedVUs,omitempty"`
	MaxVUs          int `yaml:"maxVUs,omitempty"`
	// VUInitTime is how long an arrival-rate executor takes to add a VU
	// beyond PreAllocatedVUs. 0 adds it at once and runs the iteration on it
	// (iterations are dropped only at MaxVUs, as older k6 releases did).
	// Above 0 it does as current k6 does: the iteration that found no free
	// VU is dropped and one VU is initialised in the background, ready after
	// VUInitTime.
	VUInitTime time.Duration `yaml:"vuInitTime,omitempty"`
	// Poisson draws arrival-rate iteration starts as a Poisson process of
	// the same rate instead of k6's even spacing (not k6: for checking the
	// queue against M/M/c formulas).
	Poisson bool `yaml:"poisson,omitempty"`

	// VUs is constant-vus's VU count.
	VUs int `yaml:"vus,omitempty"`
	// StartVUs is ramping-vus's VU count at its start.
	StartVUs int `yaml:"startVUs,omitempty"`
	// GracefulRampDown is how long a ramping-vus VU that is ramped down may
	// finish its iteration before it is interrupted; 0 means k6's 30 s.
	GracefulRampDown time.Duration `yaml:"gracefulRampDown,omitempty"`
	// GracefulStop is how long iterations running at the scenario's end may
	// finish before they are interrupted; 0 means k6's 30 s.
	GracefulStop time.Duration `yaml:"gracefulStop,omitempty"`

	// Mix picks one request per iteration from these classes with these
	// weights; nil means every class with its Class.Share.
	Mix []MixItem `yaml:"mix,omitempty"`
	// Flow, when set, is the fixed sequence of classes one iteration
	// requests, one after the other (overrides Mix).
	Flow []string `yaml:"flow,omitempty"`
	// Think is a sleep at the end of every iteration (inside it, as k6's
	// sleep() in the default function).
	Think time.Duration `yaml:"think,omitempty"`
	// Overhead is the VU's own time per iteration (script work), added once
	// at the iteration's end before Think.
	Overhead time.Duration `yaml:"overhead,omitempty"`

	// WS, when set, makes every iteration a WebSocket class (a host and
	// players) against Config.WS instead of requests.
	WS *WSIteration `yaml:"ws,omitempty"`
}

// Stage is one k6 stage: reach Target linearly over Duration.
type Stage struct {
	// Duration is the stage's length.
	Duration time.Duration `yaml:"duration,omitempty"`
	// Target is iterations per TimeUnit (arrival rate) or VUs (ramping-vus,
	// a whole number).
	Target float64 `yaml:"target,omitempty"`
}

// MixItem is one class's weight in a scenario's mix.
type MixItem struct {
	// Class is a Class.Name.
	Class string `yaml:"class,omitempty"`
	// Share is its weight (the shares need not sum to 1).
	Share float64 `yaml:"share,omitempty"`
}

// WSServer is the WebSocket fan-out server of the k6-v2 corpus (recsrv
// -mode ws): a host's message is broadcast to every player of its game, and
// every player message is written while holding one server-wide lock for
// PerMessage. Broadcasts in progress take turns at the lock (each waits for
// it again after every message), so the lock is a single FIFO server of
// messages. Capacity: 1 / E[PerMessage] player messages per second.
type WSServer struct {
	// PerMessage is the lock hold per player message (ms).
	PerMessage Dist `yaml:"perMessage,omitempty"`
}

// WSIteration is one iteration of the corpus's ws_fanout script: a "class"
// of one host and Players players, each on its own connection. The host
// asks Questions questions, one every Interval (the first Interval after it
// connected); CloseAfter after the last one every connection is closed and
// the iteration ends. Players record fanout_ms = receive time − ask time
// (integer ms, as Date.now() differences are).
type WSIteration struct {
	// URL is the base URL; default "ws://127.0.0.1:18082/ws". A connection's
	// url and name tags are URL?game=g<vu>-<iter>&role=player&id=<i> (or
	// &role=host).
	URL string `yaml:"url,omitempty"`
	// Players per class; default 20.
	Players int `yaml:"players,omitempty"`
	// Questions per class; default 10.
	Questions int `yaml:"questions,omitempty"`
	// Interval between questions; default 1 s.
	Interval time.Duration `yaml:"interval,omitempty"`
	// CloseAfter is the wait after the last question; default 1.5 s.
	CloseAfter time.Duration `yaml:"closeAfter,omitempty"`
	// Connect is the time to open one connection (ws_connecting, ms);
	// default uniform [3, 12] ms.
	Connect Dist `yaml:"connect,omitempty"`
}

// Output shapes the emitted samples.
type Output struct {
	// SystemTags is k6's --system-tags: the tags samples carry; nil means
	// k6's default set (DefaultSystemTags). The CSV's tag columns are the
	// enabled tags, sorted. vu and iter are not supported.
	SystemTags []string `yaml:"systemTags,omitempty"`
	// NoExpectedResponse and NoStatus drop those tags from the set (a run
	// recorded with a restricted --system-tags).
	NoExpectedResponse bool `yaml:"noExpectedResponse,omitempty"`
	NoStatus           bool `yaml:"noStatus,omitempty"`
	// HTTPTimings also emits http_req_blocked, http_req_connecting,
	// http_req_tls_handshaking, http_req_sending and http_req_receiving, so
	// a request has k6's full 9 samples instead of http_reqs,
	// http_req_duration, http_req_waiting and http_req_failed.
	HTTPTimings bool `yaml:"httpTimings,omitempty"`
	// Sending and Receiving are the client's send and receive times of a
	// request (http_req_sending, http_req_receiving), added to the server's
	// time to make http_req_duration; default 0.
	Sending   time.Duration `yaml:"sending,omitempty"`
	Receiving time.Duration `yaml:"receiving,omitempty"`
	// PushJitter is the mean (exponential) delay between an event and the
	// moment its samples reach k6's output buffer; rows are written in that
	// order, so close samples of different VUs come out slightly out of
	// time order, as in real k6 files. 0 writes in event order.
	PushJitter time.Duration `yaml:"pushJitter,omitempty"`
}

// DefaultSystemTags is k6's default system tag set
// (metrics.DefaultSystemTagSet).
var DefaultSystemTags = []string{
	"proto", "subproto", "status", "method", "url", "name", "group", "check",
	"error", "error_code", "tls_version", "scenario", "service",
	"expected_response",
}
