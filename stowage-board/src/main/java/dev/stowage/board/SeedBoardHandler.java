package dev.stowage.board;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.stowage.board.protocol.Board;
import dev.stowage.board.protocol.BoardIds;
import dev.stowage.board.protocol.NewBoard;
import java.util.ArrayList;
import java.util.List;
import org.msgpack.jackson.dataformat.MessagePackFactory;
import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.Limit;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.core.ReactiveRedisTemplate;
import org.springframework.data.redis.core.ReactiveZSetOperations;
import org.springframework.data.redis.serializer.RedisSerializationContext;
import org.springframework.data.redis.serializer.RedisSerializer;
import org.springframework.data.redis.serializer.StringRedisSerializer;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The seed's own implementation, rewritten from its description to serve as the benchmark's
 * baseline: a {@code ReactiveRedisTemplate}, the whole record as the sorted-set member (a JSON
 * string, or MessagePack bytes), and a plain {@code ObjectMapper} that decodes every member into a
 * {@link Board}, which WebFlux then encodes again. Redis failures are not absorbed, as in the seed.
 *
 * <p>One departure: on an empty page the seed returned every row of the database; this returns the
 * same page from the database instead, so that a page past the end stays small.
 */
final class SeedBoardHandler implements BoardHandler {
  private final BoardStore repository;
  private final BoardFormats formats;
  private final boolean msgpack;
  private final ObjectMapper objectMapper;
  private final BoardScores scores;
  private final ReactiveZSetOperations<String, Object> redisZSet;

  @SuppressWarnings({"unchecked", "rawtypes"})
  SeedBoardHandler(
      BoardMode mode,
      ReactiveRedisConnectionFactory connectionFactory,
      BoardStore repository,
      BoardFormats formats,
      BoardScores.Counter counter) {
    this.repository = repository;
    this.formats = formats;
    this.msgpack = mode == BoardMode.SEED_MSGPACK;
    // As in the seed: JSON uses a default ObjectMapper; MessagePack one on a MessagePackFactory.
    this.objectMapper = msgpack ? new ObjectMapper(new MessagePackFactory()) : new ObjectMapper();
    this.objectMapper.registerModule(new JavaTimeModule());
    RedisSerializer values = msgpack ? RedisSerializer.byteArray() : new StringRedisSerializer();
    RedisSerializationContext<String, Object> context =
        RedisSerializationContext.<String, Object>newSerializationContext(
                new StringRedisSerializer())
            .key(new StringRedisSerializer())
            .value(values)
            .hashKey(new StringRedisSerializer())
            .hashValue(new StringRedisSerializer())
            .build();
    ReactiveRedisTemplate<String, Object> template =
        new ReactiveRedisTemplate<>(connectionFactory, context);
    this.scores = new BoardScores(counter, repository);
    this.redisZSet = template.opsForZSet();
  }

  @Override
  public Mono<ServerResponse> create(ServerRequest request) {
    return Mono.defer(
        () -> {
          boolean msgpackBody = BoardRequests.isMsgpackBody(request);
          return BoardRequests.body(request, BoardLimits.MAX_POST_BYTES)
              .map(body -> formats.parseOne(body, msgpackBody))
              .flatMap(this::createItem)
              .flatMap(board -> respond(request, ApiResponse.success(board)));
        });
  }

  @Override
  public Mono<ServerResponse> createAll(ServerRequest request) {
    return Mono.defer(
        () -> {
          boolean msgpackBody = BoardRequests.isMsgpackBody(request);
          return BoardRequests.body(request, BoardLimits.MAX_BULK_BYTES)
              .map(body -> formats.parseMany(body, msgpackBody))
              .flatMap(this::createItems)
              .flatMap(boards -> respond(request, ApiResponse.success(boards)));
        });
  }

  /** The seed's create: a score from the counter, the database row, then the member. */
  private Mono<Board> createItem(NewBoard input) {
    return createItems(List.of(input)).map(boards -> boards.get(0));
  }

  /**
   * The seed's create for several posts: one reservation of the counter ({@code HINCRBY}, see
   * {@link BoardScores}) scores them and one multi-row insert stores them, so that a failure stores
   * all or none; then a {@code ZADD} per post, as the seed adds each member.
   */
  private Mono<List<Board>> createItems(List<NewBoard> inputs) {
    return repository
        .writing(
            ticket ->
                scores
                    .reserve(inputs.size())
                    .flatMap(
                        first -> {
                          if (ticket != null) {
                            ticket.scored(first, first + inputs.size() - 1);
                          }
                          long now = System.currentTimeMillis();
                          List<Board> boards = new ArrayList<>(inputs.size());
                          for (int i = 0; i < inputs.size(); i++) {
                            boards.add(Board.create(inputs.get(i), first + i, now));
                          }
                          return repository.insertAll(boards).thenReturn(boards);
                        }))
        .flatMap(
            boards -> Flux.fromIterable(boards).concatMap(this::addMember).then(Mono.just(boards)));
  }

  private Mono<Board> addMember(Board board) {
    Object encoded;
    try {
      encoded =
          msgpack ? objectMapper.writeValueAsBytes(board) : objectMapper.writeValueAsString(board);
    } catch (JsonProcessingException e) {
      return Mono.error(new RuntimeException(e));
    }
    return redisZSet
        .add("board", encoded, (double) board.score())
        .flatMap(
            added ->
                added
                    ? Mono.just(board)
                    : Mono.error(new RuntimeException("redis zset add error")));
  }

  @Override
  public Mono<ServerResponse> page(ServerRequest request) {
    return Mono.defer(
        () -> {
          PageRequest page = BoardRequests.page(request);
          return redisZSet
              .reverseRangeByScore(
                  "board",
                  Range.unbounded(),
                  Limit.limit().offset((int) page.offset()).count(page.size()))
              .flatMap(
                  member -> {
                    try {
                      return Mono.just(
                          msgpack
                              ? objectMapper.readValue((byte[]) member, Board.class)
                              : objectMapper.readValue((String) member, Board.class));
                    } catch (Exception e) {
                      return Mono.error(new RuntimeException(e));
                    }
                  })
              .switchIfEmpty(repository.page(page.offset(), page.size()))
              .collectList()
              .flatMap(boards -> respond(request, ApiResponse.success(boards)));
        });
  }

  @Override
  public Mono<ServerResponse> get(ServerRequest request) {
    String id = request.pathVariable("id");
    // An id that is not 24 hex digits names no post: not looked up (PostgreSQL would fail on a
    // NUL).
    Mono<Board> found = BoardIds.scoreOf(id) < 0 ? Mono.empty() : repository.findById(id);
    return found
        .switchIfEmpty(
            Mono.error(() -> new BoardRequestException(404, "no board with id '" + id + "'")))
        .flatMap(board -> respond(request, ApiResponse.success(board)));
  }

  private static Mono<ServerResponse> respond(ServerRequest request, ApiResponse<?> body) {
    MediaType type =
        BoardRequests.wantsMsgpack(request) ? BoardFormats.MSGPACK : MediaType.APPLICATION_JSON;
    return ServerResponse.ok().contentType(type).bodyValue(body);
  }
}
