@plan @guards
Feature: Phase guards and error handling of the plan executor
  As an operator
  I want the executor to refuse runs that the plan's phase does not allow, and to keep every failure's details
  So that a plan never runs out of order and no error is lost

  Scenario: Execute requires strategize to be complete
    Given a queued plan that has not been strategized
    When I try to run execute on it
    Then a PlanError is raised mentioning "strategize"
    And the plan is still queued in phase strategize

  Scenario: Strategize refuses a plan that is already past strategize
    Given a plan that has been strategized
    When I try to run strategize on it
    Then a PlanError is raised mentioning "phase strategize"

  Scenario: An unknown plan id is a ValidationError naming planId
    When I try to run strategize on plan "01ARZ3NDEKTSV4RRFFQ69G5FAV"
    Then a ValidationError is raised mentioning "planId"

  Scenario: A failing tool moves the plan to errored with its details
    Given a strategized plan whose step calls the failing tool "boom"
    When I run execute on it
    Then the plan is errored with message containing "boom exploded"
    And the error details include exceptionType, traceback and mode "runtime"
    And the failed decision has status failed

  Scenario: Error details are merged, never overwritten
    Given a strategized plan whose step calls the failing tool "boom"
    And the plan's error details already hold "ticket" = "OPS-1"
    When I run execute on it
    Then the error details still hold "ticket" = "OPS-1"
    And the error details include exceptionType, traceback and mode "runtime"

  Scenario: After execute the changeset and sandbox refs are persisted on the plan
    Given a strategized plan whose step writes "hello.txt" in a sandbox
    When I run execute on it
    Then the plan is queued in phase apply
    And the plan records the changeset id, the sandbox ref and a tool call count of 1
    And the changeset holds a create entry for "hello.txt"

  Scenario: Streaming events arrive in order with a monotonic seq per plan
    Given a strategized plan whose step writes "hello.txt" in a sandbox
    When I run strategize and execute with a stream callback on a fresh plan of the same steps
    Then the events start with strategize_started, strategize_decisions, strategize_complete
    And then runtime_execute_started, runtime_execute_step and end with runtime_execute_complete
    And every event carries the plan id and a seq one above the previous

  Scenario: Without an execution context execute runs the legacy stub actor
    Given a strategized plan whose step writes "hello.txt" in a sandbox
    When I run execute on it without an execution context
    Then the stream shows execute_started, execute_step and execute_complete
    And the result changeset holds a create entry for "hello.txt"
