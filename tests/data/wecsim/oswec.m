%% Simulation Data
simu = simulationClass();
simu.simMechanicsFile = 'OSWEC.slx';
simu.rampTime = 100;
simu.endTime = 400;
simu.solver = 'ode4';
simu.dt = 0.1;
simu.CITime = 30;

%% Wave Information
waves = waveClass('regular');
waves.height = 2.5;
waves.period = 8;

%% Body Data
% Flap
body(1) = bodyClass('hydroData/oswec.nc');   % (a stand-in two-body dataset: RM3's)
body(1).mass = 127000;
body(1).inertia = [1.85e6 1.85e6 1.85e6];

% Base
body(2) = bodyClass('hydroData/oswec.nc');
body(2).mass = 999;                           % Placeholder mass for a fixed body
body(2).inertia = [999 999 999];

%% PTO and Constraint Parameters
% Fixed
constraint(1)= constraintClass('Constraint1');
constraint(1).location = [0 0 -10];

% Rotational PTO
pto(1) = ptoClass('PTO1');
pto(1).stiffness = 0;
pto(1).damping = 12000000;
pto(1).location = [0 0 -8.9];
